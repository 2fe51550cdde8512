# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Motion: the exact arc of constant wheel speeds, odometry beside the truth, the motor law.

Compiled kernels over the World's robot array (layout.py's columns). Between two commands the
wheel speeds are constant, so a robot moves along an exact arc however long the step; the
odometry follows the same arc with the robot's scale error. The formulas and their order are
the numpy code's (test/world_reference.py), so the poses are the same to the bit.
``cache=True``: compiled once per install, then loaded in milliseconds.
"""
from __future__ import annotations

import math

from numba import njit
import numpy as np

from thymio_road.sim import kernel_cache
from thymio_road.sim import robot_model as rm
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import (CLOCK, GAIN, LEFT, LOG, LOGGED, MOTOR, ODOM, ODOM_SCALE, POSE, RIGHT, TARGET, THETA,
                                    WHEEL, X, Y)

AXLE = rm.AXLE_LENGTH


@njit(cache=True)
def arc(row: np.ndarray, at: int, vl: float, vr: float, dt: float) -> None:
    """Exact differential-drive motion for constant wheel speeds over dt, in place, of the pose
    in columns at + X, Y, THETA of `row` (a robot's truth or its odometry).
    """
    x, y, th = row[at + X], row[at + Y], row[at + THETA]
    v = (vl + vr) / 2.0
    w = (vr - vl) / AXLE
    th2 = th + w * dt
    if abs(w) < 1e-9:
        x += v * dt * math.cos(th)
        y += v * dt * math.sin(th)
    else:
        x += v / w * (math.sin(th2) - math.sin(th))
        y -= v / w * (math.cos(th2) - math.cos(th))
    row[at + X] = x
    row[at + Y] = y
    row[at + THETA] = (th2 + math.pi) % (2 * math.pi) - math.pi


@njit(cache=True)
def move(i: int, t: float, robots: np.ndarray, movable: np.ndarray, step: np.ndarray) -> bool:
    """Robot i along its arc to t (instant wheels); its displacement goes to step[X], step[Y].

    Returns whether it moved: the caller adds the distance with Python's own math.hypot, which
    rounds differently from the C library's in about one case in 170.
    """
    dt = t - robots[i, CLOCK]
    if dt <= 0:
        return False
    robots[i, CLOCK] = t
    if not movable[i]:
        return False
    vl, vr = robots[i, TARGET + LEFT], robots[i, TARGET + RIGHT]
    if vl == 0.0 and vr == 0.0:
        return False
    x0, y0 = robots[i, POSE + X], robots[i, POSE + Y]
    row = robots[i]
    arc(row, POSE, vl, vr, dt)
    arc(row, ODOM, vl * robots[i, ODOM_SCALE + LEFT], vr * robots[i, ODOM_SCALE + RIGHT], dt)
    step[X] = robots[i, POSE + X] - x0
    step[Y] = robots[i, POSE + Y] - y0
    return True


@njit(cache=True)
def move_logged(i: int, t: float, robots: np.ndarray, movable: np.ndarray, ints: np.ndarray,
                log_step: np.ndarray) -> None:
    """:func:`move`, its displacement appended to the log (ints[LOGGED] entries: the robot in
    ints[LOG:], the step in log_step) for World to add up later, in order.
    """
    k = ints[LOGGED]
    if move(i, t, robots, movable, log_step[k]):
        ints[LOG + k] = i
        ints[LOGGED] = k + 1


@njit(cache=True)
def log_full(ints: np.ndarray, m: int) -> bool:
    """Whether the displacement log lacks room for m more entries."""
    return ints[LOGGED] + m > ints.shape[0] - LOG


@njit(cache=True)
def move_group_logged(group: np.ndarray, m: int, t: float, robots: np.ndarray, movable: np.ndarray,
                      ints: np.ndarray, log_step: np.ndarray) -> bool:
    """:func:`move_logged` for the group's first m robots; False (nothing done) when the log
    lacks room for them.
    """
    if log_full(ints, m):
        return False
    for k in range(m):
        move_logged(group[k], t, robots, movable, ints, log_step)
    return True


@njit(cache=True)
def wheel_speed(units: int) -> float:
    """robot_model.wheel_speed_scalar, compiled (the same operations)."""
    mag = min(abs(units), rm.MOTOR_UNITS_MAX)
    if mag <= rm.PLATEAU_START_UNITS:
        speed = rm.SPEED_PER_UNIT * mag
    else:
        knee = rm.SPEED_PER_UNIT * rm.PLATEAU_START_UNITS
        speed = knee + (rm.PLATEAU_SPEED - knee) * (mag - rm.PLATEAU_START_UNITS) / (
            rm.MOTOR_UNITS_MAX - rm.PLATEAU_START_UNITS)
    return math.copysign(speed, units) if units else 0.0


@njit(cache=True)
def command(i: int, left: int, right: int, nl: float, nr: float, sigma: float, robots: np.ndarray,
            robot_ints: np.ndarray, instant: bool) -> None:
    """Robot i's motor targets: the motor law, the robot's gains and this command's noise
    (nl, nr); with `instant` wheels they are its wheel speeds at once.
    """
    robot_ints[i, MOTOR + LEFT] = left
    robot_ints[i, MOTOR + RIGHT] = right
    robots[i, TARGET + LEFT] = wheel_speed(left) * robots[i, GAIN + LEFT] * (1.0 + sigma * nl)
    robots[i, TARGET + RIGHT] = wheel_speed(right) * robots[i, GAIN + RIGHT] * (1.0 + sigma * nr)
    if instant:
        robots[i, WHEEL + LEFT] = robots[i, TARGET + LEFT]
        robots[i, WHEEL + RIGHT] = robots[i, TARGET + RIGHT]


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
