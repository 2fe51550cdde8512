# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Physical facts about the Thymio II that the world, the controller and the driver share.

All lengths are metres and angles radians (REP-103); docs/design.md (Thymio facts) lists the same numbers in cm.
Robot frame: x forward, y left, origin at the middle of the wheel axle.
"""
from __future__ import annotations

import math

import numpy as np

# --- Motors (report §2.1, eq. 1 and Fig. 1) -------------------------------------------------
MOTOR_UNITS_MAX = 500
#: Report eq. (1): speed [cm/s] = 0.032 · command, linear up to the plateau.
SPEED_PER_UNIT = 0.032e-2
#: The report sees a plateau "above 450" at "approximately 15 cm/s".
PLATEAU_START_UNITS = 450
PLATEAU_SPEED = 0.15
#: Wheel axle length (Enki 9.4 cm; ros-thymio 9.35 cm).
AXLE_LENGTH = 0.094
#: Enki's motor noise: ±2.7 % of the commanded speed.
MOTOR_NOISE = 0.027


def wheel_speed(units: np.ndarray | float) -> np.ndarray:
    """Wheel speed (m/s) for a motor command, with the report's linear law and plateau."""
    u = np.clip(np.asarray(units, dtype=float), -MOTOR_UNITS_MAX, MOTOR_UNITS_MAX)
    mag = np.abs(u)
    linear = SPEED_PER_UNIT * mag
    knee = SPEED_PER_UNIT * PLATEAU_START_UNITS
    slope = (PLATEAU_SPEED - knee) / (MOTOR_UNITS_MAX - PLATEAU_START_UNITS)
    plateau = knee + slope * (mag - PLATEAU_START_UNITS)
    return np.sign(u) * np.where(mag <= PLATEAU_START_UNITS, linear, plateau)


def wheel_speed_scalar(units: float) -> float:
    """:func:`wheel_speed` for one command, without numpy's per-call overhead."""
    mag = min(abs(units), MOTOR_UNITS_MAX)
    if mag <= PLATEAU_START_UNITS:
        speed = SPEED_PER_UNIT * mag
    else:
        knee = SPEED_PER_UNIT * PLATEAU_START_UNITS
        speed = knee + (PLATEAU_SPEED - knee) * (mag - PLATEAU_START_UNITS) / (MOTOR_UNITS_MAX - PLATEAU_START_UNITS)
    return math.copysign(speed, units) if units else 0.0


def units_to_twist(left: float, right: float) -> tuple[float, float]:
    """Nominal (linear-law) conversion of wheel commands to (v, ω) for `cmd_vel`.

    The world and the driver invert exactly this law, so a controller's integer commands
    survive the round trip through geometry_msgs/Twist; the robot's own motor model
    (plateau, variation, noise) is applied after that.
    """
    vl, vr = SPEED_PER_UNIT * left, SPEED_PER_UNIT * right
    return (vl + vr) / 2.0, (vr - vl) / AXLE_LENGTH


def twist_to_units(v: float, omega: float) -> tuple[int, int]:
    """Inverse of :func:`units_to_twist`, rounded to the integer motor targets Aseba takes."""
    half = omega * AXLE_LENGTH / 2.0
    left = round((v - half) / SPEED_PER_UNIT)
    right = round((v + half) / SPEED_PER_UNIT)
    clip = MOTOR_UNITS_MAX
    return max(-clip, min(clip, left)), max(-clip, min(clip, right))


# --- Body (Enki): front arc of radius 8 cm over ±43.4°, rear corners at (-3, ±5.5) cm --------
HULL_FRONT_RADIUS = 0.08
HULL_FRONT_HALF_ANGLE = math.radians(43.4)
HULL_REAR_X = -0.03
HULL_HALF_WIDTH = 0.055
#: Radius of a circle around the origin that contains the hull (broad phase).
HULL_BOUND_RADIUS = HULL_FRONT_RADIUS


def hull_polygon(arc_points: int = 9) -> np.ndarray:
    """Convex hull of the body as a counter-clockwise polygon (k×2)."""
    angles = np.linspace(-HULL_FRONT_HALF_ANGLE, HULL_FRONT_HALF_ANGLE, arc_points)
    front = np.column_stack([HULL_FRONT_RADIUS * np.cos(angles), HULL_FRONT_RADIUS * np.sin(angles)])
    rear = np.array([[HULL_REAR_X, HULL_HALF_WIDTH], [HULL_REAR_X, -HULL_HALF_WIDTH]])
    return np.vstack([front, rear])


HULL = hull_polygon()

# --- Horizontal proximity sensors (Aseba order: 5 front left→right, rear left, rear right) ----
PROX_NAMES = ('left', 'center_left', 'center', 'center_right', 'right', 'rear_left', 'rear_right')
PROX_SENSORS = np.array([
    (0.062, 0.0485, math.radians(40)),
    (0.075, 0.0255, math.radians(20)),
    (0.0795, 0.0, 0.0),
    (0.075, -0.0255, math.radians(-20)),
    (0.062, -0.0485, math.radians(-40)),
    (-0.0295, 0.0295, math.pi),
    (-0.0295, -0.0295, math.pi),
])
#: Enki proximity model: range 14 cm, three rays at -15°, 0, +15°.
PROX_RANGE = 0.14
PROX_RAY_ANGLES = np.radians([-15.0, 0.0, 15.0])
PROX_M = 4505.0
PROX_X0 = 0.03  # cm, as in Enki's formula
PROX_C = 73.0  # cm²
PROX_NOISE = 2.87


def prox_response(distance_m: np.ndarray) -> np.ndarray:
    """Enki's sensor response F(x) = m(c - x0²)/(x² - 2·x0·x + c), x in cm; 0 where no hit (inf)."""
    x = np.asarray(distance_m, dtype=float) * 100.0
    with np.errstate(invalid='ignore'):
        value = PROX_M * (PROX_C - PROX_X0 ** 2) / (x * x - 2 * PROX_X0 * x + PROX_C)
    return np.where(np.isfinite(x), value, 0.0)


def prox_distance(value: np.ndarray | float) -> np.ndarray:
    """Inverse of :func:`prox_response` (m); +inf where nothing is seen (REP-117)."""
    f = np.asarray(value, dtype=float)
    k = PROX_C - PROX_X0 ** 2
    with np.errstate(divide='ignore', invalid='ignore'):
        sq = PROX_M * k / f - k
        x_cm = PROX_X0 + np.sqrt(np.maximum(sq, 0.0))
    return np.where(f > 0, x_cm / 100.0, np.inf)


# --- Ground sensors (Enki): at (7.2, ±1.15) cm, 2×2 cm patch with Gaussian weights σ 0.4 cm ----
GROUND_SENSORS = np.array([(0.072, 0.0115), (0.072, -0.0115)])
GROUND_SENSORS_TUPLE = tuple(map(tuple, GROUND_SENSORS.tolist()))
GROUND_SIGMA = 0.004
GROUND_PATCH = 0.02
GROUND_NOISE = 10.0
GROUND_MAX = 1023


def ground_response(grey: np.ndarray) -> np.ndarray:
    """Enki's ground sensor: 884·sigmoid(9(v - 0.44)) + 60 for a grey v in [0, 1] (black ≈ 77, white ≈ 938)."""
    return 884.0 / (1.0 + np.exp(-9.0 * (np.asarray(grey) - 0.44))) + 60.0


# --- Events ------------------------------------------------------------------------------------
#: The "prox" event (horizontal + ground sensors) fires at 10 Hz; the report's controller runs on it.
PROX_EVENT_PERIOD = 0.1
