# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""e-puck proximity-sensor layout and the poses of emitters and detectors (paper eqs. 1, 2, 8, 9).

The paper's Fig. 2 (the sensors' polar coordinates) is not in its text. The layout used here is the one
of Cyberbotics' public e-puck model (the ``webots_ros2_epuck`` driver): eight sensors on a circle of
radius 3.5 cm at -15°, -45°, -90°, -150°, 150°, 90°, 45° and 15° (ps0 … ps7, x forward, y left). Enki's
e-puck (``EPuck.cpp``) agrees on the angles (±16°, ±45°, ±90°, ±150°) with positions 3.1–3.7 cm from the
centre. Sensor i of the paper (1 … 8) is index i − 1 here (ps0 … ps7). Lengths are in cm, angles in rad.

Other public models place the sensors inside the body rather than on it (:data:`EPUCK_LAYOUTS`):
Cyberbotics' Webots robot model (``E-puck.proto``) at 3.1–3.35 cm from the centre, Enki's at 3.1–3.7 cm,
each with its own positions and facing directions; select one with :func:`epuck_geometry`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Sensor orientations θ_i of the public e-puck model, ps0 … ps7 (rad).
EPUCK_SENSOR_ANGLES = np.deg2rad([-15.0, -45.0, -90.0, -150.0, 150.0, 90.0, 45.0, 15.0])


def _mirrored(right: list[tuple[float, float]]) -> np.ndarray:
    """ps0 … ps3 (right side, y < 0) mirrored onto ps4 … ps7, (8, 2)."""
    half = np.asarray(right, dtype=float)
    return np.vstack([half, half[::-1] * [1.0, -1.0]])


#: Public e-puck sensor layouts: sensor centres (cm, x forward, y left) and facing directions (rad), ps0 … ps7.
#: 'webots-driver': the ``webots_ros2_epuck`` driver's table (3.5 cm, radial); 'webots-proto': Cyberbotics'
#: ``E-puck.proto`` (DistanceSensor translations, facing from their rotations: 17.2°, 45.9°, 90°, 151.5°);
#: 'enki': Enki's ``EPuck.cpp`` (IR sensor positions and orientations 16°, 45°, 90°, 150°).
EPUCK_LAYOUTS: dict[str, tuple[np.ndarray, np.ndarray]] = {
    'webots-driver': (np.stack([np.cos(EPUCK_SENSOR_ANGLES), np.sin(EPUCK_SENSOR_ANGLES)], axis=-1) * 3.5,
                      EPUCK_SENSOR_ANGLES),
    'webots-proto': (_mirrored([(3.0, -1.0), (2.2, -2.5), (0.0, -3.1), (-3.0, -1.5)]),
                     np.deg2rad([-17.2, -45.9, -90.0, -151.5, 151.5, 90.0, 45.9, 17.2])),
    'enki': (_mirrored([(3.0, -0.9), (2.6, -2.6), (0.0, -3.3), (-2.8, -1.7)]),
             np.deg2rad([-16.0, -45.0, -90.0, -150.0, 150.0, 90.0, 45.0, 16.0])),
}


def _check_positive(name: str, value: float) -> None:
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f'{name} must be a positive finite number, got {value!r}')


@dataclass(frozen=True)
class EPuckGeometry:
    """Where an e-puck's eight emitter–detector pairs sit and face, in the robot frame."""

    sensor_radius: float = 3.5
    """r_i: distance of every sensor from the robot centre (cm)."""
    sensor_angles: np.ndarray = field(default_factory=lambda: EPUCK_SENSOR_ANGLES.copy())
    """θ_i: polar angle and facing direction of each sensor (rad)."""
    pair_offset: float = 0.127
    """Half distance between a sensor's emitter and detector, ±0.127 cm (Sect. 2)."""
    body_radius: float = 3.5
    """Radius of the robot's body, which occludes other robots' links (7 cm diameter, Sect. 2)."""
    sensor_positions: np.ndarray | None = None
    """Sensor centres (sensors, 2) in the robot frame; ``None``: r_i = ``sensor_radius`` along θ_i (radial)."""

    def __post_init__(self) -> None:
        _check_positive('sensor_radius', self.sensor_radius)
        _check_positive('pair_offset', self.pair_offset)
        _check_positive('body_radius', self.body_radius)
        angles = np.asarray(self.sensor_angles, dtype=float)
        if angles.ndim != 1 or angles.size == 0 or not np.all(np.isfinite(angles)):
            raise ValueError(
                f'sensor_angles must be a non-empty 1-D array of finite angles, got {self.sensor_angles!r}')
        object.__setattr__(self, 'sensor_angles', angles)
        if self.sensor_positions is not None:
            positions = np.asarray(self.sensor_positions, dtype=float)
            if positions.shape != (angles.size, 2) or not np.all(np.isfinite(positions)):
                raise ValueError(
                    f'sensor_positions must be finite, one (x, y) per sensor angle, got {self.sensor_positions!r}')
            object.__setattr__(self, 'sensor_positions', positions)

    @property
    def sensor_count(self) -> int:
        return int(self.sensor_angles.size)

    def _radial_and_tangent(self) -> tuple[np.ndarray, np.ndarray]:
        theta = self.sensor_angles
        if self.sensor_positions is None:
            centre = np.stack([np.cos(theta), np.sin(theta)], axis=-1) * self.sensor_radius
        else:
            centre = self.sensor_positions
        tangent = np.stack([-np.sin(theta), np.cos(theta)], axis=-1) * self.pair_offset
        return centre, tangent

    def emitters_local(self) -> np.ndarray:
        """Emitter positions p^loc_e,i in the robot frame, shape (sensors, 2) (eq. 1)."""
        radial, tangent = self._radial_and_tangent()
        return radial + tangent

    def detectors_local(self) -> np.ndarray:
        """Detector positions p^loc_d,i in the robot frame, shape (sensors, 2) (eq. 2)."""
        radial, tangent = self._radial_and_tangent()
        return radial - tangent


def epuck_geometry(layout: str = 'webots-driver', **overrides) -> EPuckGeometry:
    """An :class:`EPuckGeometry` with the sensors of one of :data:`EPUCK_LAYOUTS` (body radius 3.5 cm)."""
    if layout not in EPUCK_LAYOUTS:
        raise ValueError(f'layout must be one of {tuple(EPUCK_LAYOUTS)}, got {layout!r}')
    if layout == 'webots-driver':
        return EPuckGeometry(**overrides)
    positions, angles = EPUCK_LAYOUTS[layout]
    return EPuckGeometry(sensor_angles=angles.copy(), sensor_positions=positions.copy(), **overrides)


def to_world(local: np.ndarray, position: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """Rotate and translate robot-frame points into the world (eqs. 8, 9).

    ``local`` is (S, 2); ``position`` (..., 2) and ``heading`` (...) broadcast together; the result is
    (..., S, 2).
    """
    position = np.asarray(position, dtype=float)
    heading = np.asarray(heading, dtype=float)
    c = np.cos(heading)[..., None]
    s = np.sin(heading)[..., None]
    x = c * local[:, 0] - s * local[:, 1] + position[..., 0:1]
    y = s * local[:, 0] + c * local[:, 1] + position[..., 1:2]
    return np.stack([x, y], axis=-1)


def wrap_angle(angle: np.ndarray) -> np.ndarray:
    """Map angles to [-π, π)."""
    return (np.asarray(angle) + np.pi) % (2.0 * np.pi) - np.pi
