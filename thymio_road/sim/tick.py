# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The fused robot event and world tick: motion, broad phase, proximity and ground in one call.

A robot event (World.event) is a move, a neighbour search, the neighbours' moves, the proximity
rays, the ground sensors and the road truth: six kernels and their Python glue. These kernels
do them in one compiled call on the World's packed arrays (layout.py: `params`, the tuples
`fleet`, `work`, `tables`, `io`, and the noise buffers), drawing the noise from the streams'
buffers (NoiseStream's buffer and cursor) and logging each displacement for the distance
travelled, which World sums later with Python's math.hypot in the same order. A kernel that
lacks room in a noise buffer or in the log returns NEED_ROOM before it changes anything, so the
caller refills and calls again; one that finds two hulls that may touch stops after the moves
(NEED_RESOLVE), since contact resolution is Python (collision.py), and the caller finishes
with :func:`sense`.
"""
from __future__ import annotations

import math

from numba import njit
import numpy as np

from thymio_road.sim import kernel_cache
from thymio_road.sim.broad_phase import (ALL_ROBOTS, any_pair_within, close_robots, grid_build, grid_near,
                                         grid_size, within_among)
from thymio_road.sim.ground import ground_pair, road_truth
from thymio_road.sim.kernel_cache import DIGEST
from thymio_road.sim.layout import (BARCODE_OUT, CLOCK, COLS, DIRECTORIES, GROUND_CURSOR, GROUND_OUT, GROUND_SIGMA,
                                    GROUP, GROUP_SIZE, HULL_REACH2, INTS, LEFT, LOG_STEP, LOSS_TIME, MOTOR_CURSOR,
                                    MOTOR_SIGMA, MOVABLE, NEAR, NOISE_GROUND, NOISE_MOTOR, NOISE_PROX, ODOM, OUTS, PAIR,
                                    PERIOD, POINT_WIDTH, POSE, POSE_WIDTH, PROX_COUNT, PROX_CURSOR, PROX_OUT,
                                    PROX_REACH2, PROX_SIGMA, QUEUE, QUEUE_DONE, QUEUE_LEFT, QUEUE_RIGHT, QUEUE_ROBOT,
                                    RESOLUTION, RESPONSE, RESPONSE_TILES, RIGHT, ROBOT_INTS, ROBOTS, ROWS, SEGMENTS,
                                    SENSE_R2, SETTLED, STATE_ODOM, STATE_POSE, STATE_WHEEL, STATES, STOPPED_FOR, TARGET,
                                    THETA, TOUCH_RADIUS, TOUCH_RADIUS2, WALL_ENDS, WHEEL, X, Y)
from thymio_road.sim.motion import command, log_full, move_logged
from thymio_road.sim.proximity import prox_rays

#: Returned when a noise buffer or the displacement log lacks room: nothing was done.
NEED_ROOM = -100
#: Returned by :func:`event` when the moved group must have its contacts resolved before sensing.
NEED_RESOLVE = -101
#: :func:`tick` stopped for the contacts of the tick's contact pass (ints[STOPPED_FOR]), or
#: before a queued command whose motor noise needs a refill.
SETTLE_RESOLVE = -102
NEED_MOTOR_ROOM = -103
#: The walls of a map without walls.
NO_WALLS = np.zeros((0, WALL_ENDS, POINT_WIDTH))
#: A cell's side beyond what a robot may reach (m): round-off in the cells' bounds.
GRID_SLACK = 1e-6
#: Fewer robots are searched all (bench_world_scale.py: with 100 the grid cost more than it saved).
GRID_MIN_ROBOTS = 200


@njit(cache=True)
def sense(i: int, out: np.ndarray, walls: np.ndarray, params: np.ndarray, fleet: tuple, work: tuple,
          noise: np.ndarray, tables: tuple) -> int:
    """Robot i's readings (out[PROX_OUT:], out[GROUND_OUT:]) and road truth; returns the barcode
    under the reading sensor (-1: none), or NEED_ROOM when a noise buffer lacks samples.
    """
    return sense_among(i, out, walls, params, fleet, work, noise, tables, ALL_ROBOTS, -1)


@njit(cache=True)
def sense_among(i: int, out: np.ndarray, walls: np.ndarray, params: np.ndarray, fleet: tuple, work: tuple,
                noise: np.ndarray, tables: tuple, among: np.ndarray, m_among: int) -> int:
    """:func:`sense`, the other robots' hulls looked for among[:m_among] only (all: m_among < 0)."""
    robots, robot_ints = fleet[ROBOTS], fleet[ROBOT_INTS]
    ints, segments = work[INTS], work[SEGMENTS]
    block = noise.shape[1]
    if ints[PROX_CURSOR] + PROX_COUNT > block or ints[GROUND_CURSOR] + PAIR > block:
        return NEED_ROOM
    poses = robots[:, POSE:POSE + POSE_WIDTH]
    if prox_rays(i, poses, params[PROX_REACH2], walls, params[PROX_SIGMA], noise[NOISE_PROX], ints[PROX_CURSOR],
                 out[PROX_OUT:PROX_OUT + PROX_COUNT], robot_ints[:, NEAR], segments, among, m_among):
        ints[PROX_CURSOR] += PROX_COUNT
    else:
        for q in range(PROX_COUNT):
            out[PROX_OUT + q] = 0
    k = ints[GROUND_CURSOR]
    rows, cols = int(params[ROWS]), int(params[COLS])
    g0, g1 = ground_pair(robots[i, POSE + X], robots[i, POSE + Y], robots[i, POSE + THETA],
                         tables[DIRECTORIES][RESPONSE], tables[RESPONSE_TILES], rows, cols, params[RESOLUTION],
                         params[GROUND_SIGMA], noise[NOISE_GROUND, k + LEFT], noise[NOISE_GROUND, k + RIGHT])
    ints[GROUND_CURSOR] = k + PAIR
    out[GROUND_OUT + LEFT] = g0
    out[GROUND_OUT + RIGHT] = g1
    return road_truth(i, robots, robot_ints, tables, rows, cols, params[RESOLUTION], params[PERIOD],
                      params[LOSS_TIME])


@njit(cache=True)
def event(i: int, t: float, out: np.ndarray, params: np.ndarray, fleet: tuple, work: tuple, noise: np.ndarray,
          tables: tuple, grid: tuple) -> int:
    """A robot event on a map without walls: World.sync, then :func:`sense`, the neighbours
    looked for in the tick's grid (:func:`neighbour_grid`; among all robots with :func:`no_grid`).

    Returns sense's value; NEED_ROOM (nothing done); or NEED_RESOLVE, the robots moved and the
    group (ints[GROUP_SIZE] robots in the GROUP column) left for the caller to resolve before it
    calls sense.
    """
    robots, robot_ints, movable = fleet[ROBOTS], fleet[ROBOT_INTS], fleet[MOVABLE]
    ints, log_step = work[INTS], work[LOG_STEP]
    n = robots.shape[0]
    block = noise.shape[1]
    if log_full(ints, n + 1) or ints[PROX_CURSOR] + PROX_COUNT > block or ints[GROUND_CURSOR] + PAIR > block:
        return NEED_ROOM
    poses = robots[:, POSE:POSE + POSE_WIDTH]
    group = robot_ints[:, GROUP]
    move_logged(i, t, robots, movable, ints, log_step)
    cell, head, chain, among = grid
    m_among = grid_near(poses[i, X], poses[i, Y], cell, head, chain, among) if cell > 0 else -1
    m = within_among(i, poses, params[SENSE_R2], among, m_among, group)
    ints[GROUP_SIZE] = m
    if m > 1:
        for k in range(m):
            move_logged(group[k], t, robots, movable, ints, log_step)
        if any_pair_within(poses, group[:m], params[HULL_REACH2]):
            return NEED_RESOLVE
    return sense_among(i, out, NO_WALLS, params, fleet, work, noise, tables, among, m_among)


@njit(cache=True)
def command_at(i: int, t: float, left: int, right: int, params: np.ndarray, fleet: tuple, work: tuple,
               noise: np.ndarray) -> bool:
    """World.command with instant wheels: robot i moved to t, then its new targets with this
    command's motor noise. False (nothing done) when the noise buffer or the log lacks room.
    """
    robots, robot_ints, movable = fleet[ROBOTS], fleet[ROBOT_INTS], fleet[MOVABLE]
    ints, log_step = work[INTS], work[LOG_STEP]
    if log_full(ints, 1) or ints[MOTOR_CURSOR] + PAIR > noise.shape[1]:
        return False
    if not movable[i]:
        return True
    move_logged(i, t, robots, movable, ints, log_step)
    k = ints[MOTOR_CURSOR]
    ints[MOTOR_CURSOR] = k + PAIR
    command(i, left, right, noise[NOISE_MOTOR, k + LEFT], noise[NOISE_MOTOR, k + RIGHT], params[MOTOR_SIGMA],
            robots, robot_ints, True)
    return True


@njit(cache=True)
def tick(t: float, settle: bool, start: int, due: np.ndarray, queued: int, io: tuple, params: np.ndarray,
         fleet: tuple, work: tuple, noise: np.ndarray, tables: tuple) -> int:
    """A world tick on a map without walls: the contact pass (`settle`, World.settle_contacts),
    then :func:`event` for due[start:], each robot's readings and the barcode under its reading
    sensor into outs[k] and its state right after its event (pose, odometry, wheel speeds) into
    states[k] (io's OUTS and STATES).

    Returns -1 when done, else where it stopped in `due`, and ints[STOPPED_FOR] says why:
    NEED_ROOM (nothing done at that point), SETTLE_RESOLVE (the pass's group, ints[GROUP_SIZE]
    robots in the GROUP column, has contacts to resolve) or NEED_RESOLVE (that robot's event
    did; sense it after). ints[SETTLED] is 1 once the pass is done.
    """
    queue, outs, states = io[QUEUE], io[OUTS], io[STATES]
    robots, robot_ints, movable = fleet[ROBOTS], fleet[ROBOT_INTS], fleet[MOVABLE]
    ints, log_step = work[INTS], work[LOG_STEP]
    n = robots.shape[0]
    ints[SETTLED] = 0 if settle else 1
    # The commands given since the last tick (World.command_soon), in order, from ints[QUEUE_DONE]
    # on: each is World.command at the robot's own clock (no move), with its motor noise.
    for q in range(ints[QUEUE_DONE], queued):
        i = queue[q, QUEUE_ROBOT]
        if movable[i]:
            if ints[MOTOR_CURSOR] + PAIR > noise.shape[1]:
                ints[QUEUE_DONE] = q
                ints[STOPPED_FOR] = NEED_MOTOR_ROOM
                return start
            k = ints[MOTOR_CURSOR]
            ints[MOTOR_CURSOR] = k + PAIR
            command(i, queue[q, QUEUE_LEFT], queue[q, QUEUE_RIGHT], noise[NOISE_MOTOR, k + LEFT],
                    noise[NOISE_MOTOR, k + RIGHT], params[MOTOR_SIGMA], robots, robot_ints, True)
        ints[QUEUE_DONE] = q + 1
    if settle:
        if log_full(ints, n):
            ints[STOPPED_FOR] = NEED_ROOM
            return start
        if n >= 2:
            group = robot_ints[:, GROUP]
            m = close_robots(robots[:, POSE:POSE + POSE_WIDTH], params[TOUCH_RADIUS], params[TOUCH_RADIUS2], group)
            if m > 0:
                for k in range(m):
                    move_logged(group[k], t, robots, movable, ints, log_step)
                if any_pair_within(robots[:, POSE:POSE + POSE_WIDTH], group[:m], params[HULL_REACH2]):
                    ints[GROUP_SIZE] = m
                    ints[STOPPED_FOR] = SETTLE_RESOLVE
                    ints[SETTLED] = 1
                    return start
        ints[SETTLED] = 1
    if start >= len(due):
        return -1
    if n >= GRID_MIN_ROBOTS:
        grid = neighbour_grid(t, params, fleet)
    else:  # cell 0: each event searches all robots
        grid = (0.0, np.empty(1, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    for k in range(start, len(due)):
        i = due[k]
        r = event(i, t, outs[k], params, fleet, work, noise, tables, grid)
        if r == NEED_ROOM or r == NEED_RESOLVE:
            ints[STOPPED_FOR] = r
            return k
        outs[k, BARCODE_OUT] = r
        state(i, robots, states[k])
    return -1


@njit(cache=True)
def neighbour_grid(t: float, params: np.ndarray, fleet: tuple) -> tuple:
    """The robots hashed into cells for the tick's events (broad_phase.grid_build): a cell's side
    is the farthest a robot senses another (SENSE_R2, PROX_REACH2) plus the farthest any robot
    can move before t (its wheel targets are constant within a tick, and an arc is no longer
    than its faster wheel's path), so an event's neighbours at t are in the 3 × 3 cells around
    it, whatever moved since the grid was built. The same neighbours as a search over all robots,
    in the same order: the recording does not change.
    """
    robots, movable = fleet[ROBOTS], fleet[MOVABLE]
    n = robots.shape[0]
    margin = 0.0
    for j in range(n):
        dt = t - robots[j, CLOCK]
        if movable[j] and dt > 0:
            margin = max(margin, max(abs(robots[j, TARGET + LEFT]), abs(robots[j, TARGET + RIGHT])) * dt)
    cell = math.sqrt(max(params[SENSE_R2], params[PROX_REACH2])) + margin + GRID_SLACK
    head = np.empty(grid_size(n), dtype=np.int64)
    chain = np.empty(n, dtype=np.int64)
    grid_build(robots[:, POSE:POSE + POSE_WIDTH], cell, head, chain)
    return cell, head, chain, np.empty(n, dtype=np.int64)


def no_grid() -> tuple:
    """The grid argument of a lone :func:`event`: it looks at every robot (building a grid for
    one event would cost as much).
    """
    return 0.0, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


@njit(cache=True)
def state(i: int, robots: np.ndarray, out: np.ndarray) -> None:
    """Robot i's pose, odometry pose and wheel speeds into out (a row of io's STATES)."""
    for c in range(POSE_WIDTH):
        out[STATE_POSE + c] = robots[i, POSE + c]
        out[STATE_ODOM + c] = robots[i, ODOM + c]
    out[STATE_WHEEL + LEFT] = robots[i, WHEEL + LEFT]
    out[STATE_WHEEL + RIGHT] = robots[i, WHEEL + RIGHT]


@njit(cache=True)
def compiled_digest() -> int:
    """kernel_cache.DIGEST as it was when this file's cached kernels were compiled."""
    return DIGEST


kernel_cache.refresh(globals())
