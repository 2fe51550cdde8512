# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The numpy world and sensors that the compiled kernels (thymio_road/sim/: motion, proximity, ground, tick) replaced:
the tests' oracle.

Kept as they were before issue #15's compiled core: :class:`ReferenceWorld` is the former ``World``
(motion in Python floats, the N×N contact matrix every tick), :class:`ReferenceProxSensing` and
:class:`ReferenceGroundSensing` the former sensors. test/test_kernels.py runs both worlds side by
side and requires the same values, bit for bit. Not used in production.
"""
from __future__ import annotations

import math

import numpy as np

from thymio_road.map.road_map import RoadMap
from thymio_road.sim import collision
from thymio_road.sim import robot_model as rm
from thymio_road.sim.noise import NoiseStream
from thymio_road.sim.sensors import hulls_world, noiseless_response, sheet_walls, transform
from thymio_road.sim.world import LAG_STEP, ROAD_LOSS_TIME, RobotSpec, WorldParams

__all__ = ['ReferenceWorld', 'ReferenceProxSensing', 'ReferenceGroundSensing', 'RobotSpec', 'WorldParams']


class ReferenceGroundSensing:
    """Enki's ground sensor: Gaussian-weighted 2×2 cm patch, sigmoid response, noise σ 10.

    The weighted patch is the same for every reading, so it is applied once to the whole sheet
    (a Gaussian blur truncated at the patch's edge); a reading is then one raster look-up.
    """

    def __init__(self, road_map: RoadMap, noise: float = rm.GROUND_NOISE) -> None:
        self.response = noiseless_response(road_map)
        self.road_map = road_map
        self.noise = noise

    def read_pair(self, x: float, y: float, theta: float, noise: NoiseStream) -> tuple[int, int]:
        """(left, right) raw values for a robot at pose (x, y, θ): the hot path, in plain floats."""
        c, s = math.cos(theta), math.sin(theta)
        n = noise.pair()
        out = []
        for k, (gx, gy) in enumerate(rm.GROUND_SENSORS_TUPLE):
            r, col = self.road_map.pixel_scalar(x + c * gx - s * gy, y + s * gx + c * gy)
            value = float(self.response[r, col]) + self.noise * n[k]
            out.append(min(max(int(round(value)), 0), rm.GROUND_MAX))
        return out[0], out[1]

    def read(self, points: np.ndarray, noise: NoiseStream) -> np.ndarray:
        """Raw values (0..1023) at world points (n×2)."""
        r, c = self.road_map.pixel(points[:, 0], points[:, 1])
        value = self.response[r, c] + self.noise * noise.take(len(points))
        return np.clip(np.rint(value), 0, rm.GROUND_MAX).astype(np.int16)


def ray_distances(origins: np.ndarray, dirs: np.ndarray, seg_a: np.ndarray, seg_b: np.ndarray,
                  max_range: float) -> np.ndarray:
    """Distance along each ray (r×2 origins, unit dirs) to the nearest segment; inf beyond range."""
    if len(seg_a) == 0:
        return np.full(len(origins), np.inf)
    e = seg_b - seg_a  # (s, 2)
    w = seg_a[None, :, :] - origins[:, None, :]  # (r, s, 2)
    denom = dirs[:, None, 0] * e[None, :, 1] - dirs[:, None, 1] * e[None, :, 0]
    with np.errstate(divide='ignore', invalid='ignore'):
        t = (w[..., 0] * e[None, :, 1] - w[..., 1] * e[None, :, 0]) / denom
        u = (w[..., 0] * dirs[:, None, 1] - w[..., 1] * dirs[:, None, 0]) / denom
    hit = (np.abs(denom) > 1e-12) & (t >= 0) & (t <= max_range) & (u >= 0) & (u <= 1)
    t = np.where(hit, t, np.inf)
    return t.min(axis=1)


class ReferenceProxSensing:
    """Enki's horizontal proximity model: three rays per sensor, response F, noise σ 2.87.

    value = F(d_left) + F(d_centre) + F(d_right) - 2·F(d_centre / cos 15°), clamped to [0, m]:
    a flat surface facing the sensor gives F(d_centre); other robots' hulls and walls are seen.
    """

    def __init__(self, walls: np.ndarray | None, noise: float = rm.PROX_NOISE,
                 box: tuple[float, float] | None = None) -> None:
        self.walls = walls if walls is not None else np.zeros((0, 2, 2))
        #: When the walls are the sheet's border (width, height), a quick inside test skips them.
        self.box = box
        self.noise = noise
        angles = rm.PROX_SENSORS[:, 2][:, None] + rm.PROX_RAY_ANGLES[None, :]
        self.local_origins = np.repeat(rm.PROX_SENSORS[:, :2], 3, axis=0)
        self.local_angles = angles.reshape(-1)
        self.reach = rm.HULL_BOUND_RADIUS * 2 + rm.PROX_RANGE

    def read(self, i: int, poses: np.ndarray, noise: NoiseStream) -> np.ndarray:
        """The 7 raw values (Aseba order) for robot i, given every robot's pose."""
        pose = poses[i]
        d = poses[:, :2] - pose[:2]
        near = np.flatnonzero((d * d).sum(axis=1) < self.reach * self.reach)
        near = near[near != i]
        walls = self.walls_near(pose)
        if len(near) == 0 and len(walls) == 0:
            return _ZEROS.copy()
        seg_a = [walls[:, 0]]
        seg_b = [walls[:, 1]]
        for poly in hulls_world(poses[near]):
            seg_a.append(poly)
            seg_b.append(np.roll(poly, -1, axis=0))
        origins = transform(self.local_origins, pose)
        ang = self.local_angles + pose[2]
        dirs = np.column_stack([np.cos(ang), np.sin(ang)])
        dist = ray_distances(origins, dirs, np.concatenate(seg_a), np.concatenate(seg_b),
                             rm.PROX_RANGE).reshape(7, 3)
        f = rm.prox_response(dist)
        centre_slant = rm.prox_response(dist[:, 1] / math.cos(rm.PROX_RAY_ANGLES[2]))
        value = f.sum(axis=1) - 2.0 * centre_slant
        seen = value > 0
        value = value + self.noise * noise.take(7)
        value = np.where(seen, np.clip(value, 0.0, rm.PROX_M), 0.0)
        return np.rint(value).astype(np.int16)

    def walls_near(self, pose: np.ndarray) -> np.ndarray:
        """Wall segments that a sensor of a robot at `pose` could reach."""
        if not len(self.walls):
            return self.walls
        x, y = float(pose[0]), float(pose[1])
        reach = rm.HULL_BOUND_RADIUS + rm.PROX_RANGE
        if self.box is not None and reach < x < self.box[0] - reach and reach < y < self.box[1] - reach:
            return self.walls[:0]
        a, b = self.walls[:, 0], self.walls[:, 1]
        e = b - a
        t = np.clip(((pose[:2] - a) * e).sum(axis=1) / (e * e).sum(axis=1), 0.0, 1.0)
        closest = a + t[:, None] * e
        return self.walls[((closest - pose[:2]) ** 2).sum(axis=1) < reach * reach]


_ZEROS = np.zeros(7, dtype=np.int16)


class ReferenceWorld:
    """Robots on a map, each advanced to its own "prox" events.

    Wheel speeds change only on commands, so a robot's motion between two events is an exact
    arc and robots far apart need not share a clock: a robot is moved when it senses, together
    with the neighbours it could touch, and contacts among them are then resolved. Every pose
    that is sensed or published is therefore free of interpenetration.
    """

    def __init__(self, road_map: RoadMap, specs: list[RobotSpec],
                 params: WorldParams | None = None, seed: int = 0) -> None:
        self.road_map, self.specs = road_map, list(specs)
        self.params = params = params or WorldParams()
        n = len(self.specs)
        self.rng = np.random.default_rng(seed)
        streams = np.random.SeedSequence(seed).spawn(3)
        self.ground_noise, self.prox_noise, self.motor_noise = (NoiseStream(s) for s in streams)
        self.poses = np.array([(s.x, s.y, s.theta) for s in self.specs], dtype=float).reshape(n, 3)
        self.odom = np.zeros((n, 3))
        self.clock = np.zeros(n)
        self.movable = np.array([not s.static for s in self.specs], dtype=bool)
        self.targets = np.zeros((n, 2), dtype=int)
        self.wheel = np.zeros((n, 2))
        self.target = np.zeros((n, 2))
        common = 1.0 + self.rng.normal(0.0, params.motor_gain_spread, (n, 1))
        imbalance = self.rng.normal(0.0, params.wheel_imbalance_spread, (n, 1)) / 2
        self.gain = common * np.hstack([1.0 + imbalance, 1.0 - imbalance])
        self.odom_scale = 1.0 + self.rng.normal(0.0, params.odometry_scale_spread, (n, 2))
        # Each robot's "prox" event has its own phase in the 0.1 s period, on the world's tick.
        self.slots = int(round(rm.PROX_EVENT_PERIOD / params.physics_dt))
        self.slot = self.rng.integers(0, self.slots, n)
        # ground truth
        self.distance = np.zeros(n)
        self.time_on_road = np.zeros(n)
        self.time_sensed = np.zeros(n)
        self.road_losses = np.zeros(n, dtype=int)
        self.off_road_for = np.zeros(n)
        self.contacts = np.zeros(n, dtype=int)
        self.ground = ReferenceGroundSensing(road_map, params.ground_noise)
        walls = sheet_walls(road_map.width, road_map.height) if road_map.walls else None
        self.prox = ReferenceProxSensing(walls, params.prox_noise,
                                         (road_map.width, road_map.height) if walls is not None else None)
        self.bounds = (road_map.width, road_map.height) if road_map.walls else None
        self.index = {s.name: i for i, s in enumerate(self.specs)}
        #: Centre distance under which two robots may touch before either senses again.
        self.touch_radius = 2 * rm.HULL_BOUND_RADIUS + 2 * rm.PLATEAU_SPEED * rm.PROX_EVENT_PERIOD * 1.5
        #: ... and under which one may see the other with its proximity sensors.
        self.sense_radius = self.touch_radius + rm.PROX_RANGE

    @property
    def time(self) -> float:
        return float(self.clock.max()) if len(self.clock) else 0.0

    # --- actuation -----------------------------------------------------------------------------
    def command(self, i: int, left: int, right: int, at: float | None = None) -> None:
        """Set motor targets (Aseba units) from time `at` on; the motor noise is drawn per command."""
        if not self.movable[i]:
            return
        if at is not None:
            self._move(i, at)
        self.targets[i] = (left, right)
        nl, nr = self.motor_noise.pair()
        sigma = self.params.motor_noise
        self.target[i, 0] = rm.wheel_speed_scalar(left) * self.gain[i, 0] * (1.0 + sigma * nl)
        self.target[i, 1] = rm.wheel_speed_scalar(right) * self.gain[i, 1] * (1.0 + sigma * nr)
        if self.params.motor_time_constant == 0:
            self.wheel[i] = self.target[i]

    # --- time ----------------------------------------------------------------------------------
    def sync(self, i: int, t: float) -> None:
        """Bring robot i and every robot it could sense or touch to time t; resolve contacts."""
        self._move(i, t)
        pose = self.poses[i]
        d = self.poses[:, :2] - pose[:2]
        group = np.flatnonzero((d * d).sum(axis=1) < self.sense_radius ** 2)
        if len(group) > 1:
            for j in group:
                self._move(int(j), t)
            sub = self.poses[group]
            pairs = collision.resolve(sub, self.movable[group], self.bounds)
            self.poses[group] = sub
            for a, b in pairs:
                self.contacts[group[[a, b]]] += 1
        elif self.bounds is not None and self.movable[i]:
            sub = self.poses[i:i + 1]
            collision.resolve(sub, self.movable[i:i + 1], self.bounds)
            self.poses[i] = sub[0]

    def settle_contacts(self, t: float) -> None:
        """Every tick: bring robots that are close to one another to t and resolve their contacts.

        Far-apart robots are left on their own clocks; close ones are kept in step so that an
        overlap can never outlive one tick.
        """
        if len(self.poses) < 2:
            return
        d = self.poses[:, None, :2] - self.poses[None, :, :2]
        close = (d * d).sum(axis=-1) < self.touch_radius ** 2
        np.fill_diagonal(close, False)
        group = np.flatnonzero(close.any(axis=1))
        if len(group) == 0:
            return
        for j in group:
            self._move(int(j), t)
        sub = self.poses[group]
        for a, b in collision.resolve(sub, self.movable[group], self.bounds):
            self.contacts[group[[a, b]]] += 1
        self.poses[group] = sub

    def snapshot(self, t: float) -> np.ndarray:
        """Poses of every robot at time t, extrapolated along their arcs (the world is unchanged)."""
        poses = self.poses.copy()
        for i in range(len(poses)):
            dt = t - self.clock[i]
            if dt > 0 and self.movable[i]:
                self._drive(i, dt, poses[i], None, self.wheel[i].copy())
        return poses

    def _move(self, i: int, t: float) -> None:
        dt = t - self.clock[i]
        if dt <= 0:
            return
        self.clock[i] = t
        if not self.movable[i]:
            return
        pose = self.poses[i]
        x0, y0 = pose[0], pose[1]
        if self.params.motor_time_constant == 0:
            # The common case, in plain floats: the hot path of every robot event.
            vl, vr = self.target[i].tolist()
            if vl == 0.0 and vr == 0.0:
                return
            _arc(pose, vl, vr, dt)
            sl, sr = self.odom_scale[i].tolist()
            _arc(self.odom[i], vl * sl, vr * sr, dt)
        elif self.wheel[i].any() or self.target[i].any():
            self._drive(i, dt, pose, self.odom[i], self.wheel[i])
        else:
            return
        self.distance[i] += math.hypot(pose[0] - x0, pose[1] - y0)

    def _drive(self, i: int, dt: float, pose: np.ndarray, odom: np.ndarray | None,
               wheel: np.ndarray) -> None:
        """Move `pose` (and `odom`) by dt while `wheel` approaches robot i's target speeds."""
        tau = self.params.motor_time_constant
        target = self.target[i]
        steps = 1 if tau == 0 or not (wheel - target).any() else max(1, math.ceil(dt / LAG_STEP))
        h = dt / steps
        for _ in range(steps):
            if tau == 0:
                vl, vr = target
            else:
                # Mean speed over the sub-step of an exponential approach to the target.
                decay = math.exp(-h / tau)
                mean = target + (wheel - target) * (tau / h) * (1.0 - decay)
                vl, vr = mean
                wheel[:] = target + (wheel - target) * decay
            _arc(pose, vl, vr, h)
            if odom is not None:
                _arc(odom, vl * self.odom_scale[i, 0], vr * self.odom_scale[i, 1], h)
        if tau == 0:
            wheel[:] = target

    # --- sensing -------------------------------------------------------------------------------
    def due(self, tick: int) -> np.ndarray:
        """Robots whose "prox" event falls on this world tick."""
        return np.flatnonzero(self.slot == tick % self.slots)

    def read_ground(self, i: int) -> tuple[int, int]:
        """prox.ground.delta: (left, right) raw values."""
        x, y, th = self.poses[i]
        return self.ground.read_pair(x, y, th, self.ground_noise)

    def read_prox(self, i: int) -> np.ndarray:
        """prox.horizontal: 7 raw values in Aseba order (other robots and walls are seen)."""
        return self.prox.read(i, self.poses, self.prox_noise)

    def record_road_truth(self, i: int, period: float = rm.PROX_EVENT_PERIOD) -> None:
        """Ground-truth road keeping, sampled at each robot's event: time on road, losses."""
        x, y, th = self.poses[i]
        gx, gy = rm.GROUND_SENSORS_TUPLE[0]
        c, s = math.cos(th), math.sin(th)
        r, col = self.road_map.pixel_scalar(x + c * gx - s * gy, y + s * gx + c * gy)
        on = self.road_map.road_index[r, col] >= 0 or self.road_map.blind_area[r, col]
        self.time_sensed[i] += period
        off = self.off_road_for[i]
        if on:
            self.time_on_road[i] += period
            self.off_road_for[i] = 0.0
        else:
            if off < ROAD_LOSS_TIME <= off + period + 1e-9:
                self.road_losses[i] += 1
            self.off_road_for[i] = off + period

    def road_under(self, i: int) -> str | None:
        """Id of the printed road under robot i's follow (left) ground sensor, or None."""
        x, y, th = self.poses[i]
        gx, gy = rm.GROUND_SENSORS_TUPLE[0]
        c, s = math.cos(th), math.sin(th)
        r, col = self.road_map.pixel_scalar(x + c * gx - s * gy, y + s * gx + c * gy)
        k = int(self.road_map.road_index[r, col])
        return self.road_map.roads[k].id if k >= 0 else None

    def barcode_under(self, i: int) -> int:
        """Index of the barcode (or mark) under robot i's right (reading) ground sensor, or -1."""
        x, y, th = self.poses[i]
        gx, gy = rm.GROUND_SENSORS_TUPLE[1]
        c, s = math.cos(th), math.sin(th)
        r, col = self.road_map.pixel_scalar(x + c * gx - s * gy, y + s * gx + c * gy)
        return int(self.road_map.barcode_index[r, col])

    def summary(self) -> list[dict]:
        """Per-robot ground truth for summary.json."""
        return [{
            'robot': spec.name,
            'static': spec.static,
            'distance_m': round(float(self.distance[i]), 4),
            'time_s': round(float(self.time_sensed[i]), 2),
            'time_on_road_s': round(float(self.time_on_road[i]), 2),
            'road_losses': int(self.road_losses[i]),
            'contacts': int(self.contacts[i]),
        } for i, spec in enumerate(self.specs)]


def _arc(pose: np.ndarray, vl: float, vr: float, dt: float) -> None:
    """Exact differential-drive motion for constant wheel speeds over dt (in place)."""
    x, y, th = pose
    v = (vl + vr) / 2.0
    w = (vr - vl) / rm.AXLE_LENGTH
    th2 = th + w * dt
    if abs(w) < 1e-9:
        x += v * dt * math.cos(th)
        y += v * dt * math.sin(th)
    else:
        x += v / w * (math.sin(th2) - math.sin(th))
        y -= v / w * (math.cos(th2) - math.cos(th))
    pose[0], pose[1], pose[2] = x, y, (th2 + math.pi) % (2 * math.pi) - math.pi
