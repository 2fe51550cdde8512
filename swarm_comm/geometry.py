"""e-puck proximity-sensor layout and the poses of emitters and detectors (paper eqs. 1, 2, 8, 9).

The paper's Fig. 2 (the sensors' polar coordinates) is not in its text. The layout used here is the one
of Cyberbotics' public e-puck model (the ``webots_ros2_epuck`` driver): eight sensors on a circle of
radius 3.5 cm at -15°, -45°, -90°, -150°, 150°, 90°, 45° and 15° (ps0 … ps7, x forward, y left). Enki's
e-puck (``EPuck.cpp``) agrees on the angles (±16°, ±45°, ±90°, ±150°) with positions 3.1–3.7 cm from the
centre. Sensor i of the paper (1 … 8) is index i − 1 here (ps0 … ps7). Lengths are in cm, angles in rad.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Sensor orientations θ_i of the public e-puck model, ps0 … ps7 (rad).
EPUCK_SENSOR_ANGLES = np.deg2rad([-15.0, -45.0, -90.0, -150.0, 150.0, 90.0, 45.0, 15.0])


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

    def __post_init__(self) -> None:
        _check_positive('sensor_radius', self.sensor_radius)
        _check_positive('pair_offset', self.pair_offset)
        _check_positive('body_radius', self.body_radius)
        angles = np.asarray(self.sensor_angles, dtype=float)
        if angles.ndim != 1 or angles.size == 0 or not np.all(np.isfinite(angles)):
            raise ValueError(f'sensor_angles must be a non-empty 1-D array of finite angles, got {self.sensor_angles!r}')
        object.__setattr__(self, 'sensor_angles', angles)

    @property
    def sensor_count(self) -> int:
        return int(self.sensor_angles.size)

    def _radial_and_tangent(self) -> tuple[np.ndarray, np.ndarray]:
        theta = self.sensor_angles
        radial = np.stack([np.cos(theta), np.sin(theta)], axis=-1) * self.sensor_radius
        tangent = np.stack([-np.sin(theta), np.cos(theta)], axis=-1) * self.pair_offset
        return radial, tangent

    def emitters_local(self) -> np.ndarray:
        """Emitter positions p^loc_e,i in the robot frame, shape (sensors, 2) (eq. 1)."""
        radial, tangent = self._radial_and_tangent()
        return radial + tangent

    def detectors_local(self) -> np.ndarray:
        """Detector positions p^loc_d,i in the robot frame, shape (sensors, 2) (eq. 2)."""
        radial, tangent = self._radial_and_tangent()
        return radial - tangent


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
