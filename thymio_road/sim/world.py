# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The simulated world: Thymios on a printed map, their motors, contacts, sensors and ground truth.

No ROS: the world node wraps it. The state of all robots is held in a few packed arrays
(sim/layout.py names their columns), and the hot paths are compiled kernels over them
(sim/motion.py, broad_phase.py, proximity.py, ground.py): a world tick, its contact pass and the
events of the robots due then, is one call (World.tick, sim/tick.py).
Between two physics ticks the wheel speeds are constant, so a robot moves exactly along an arc;
contacts are resolved after every tick.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any

import numpy as np

from thymio_road.map import schema
from thymio_road.map.road_map import RoadMap
from thymio_road.map.schema import param
from thymio_road.sim import collision, layout
from thymio_road.sim import robot_model as rm
from thymio_road.sim import tick as fused
from thymio_road.sim.broad_phase import any_pair_within, close_robots, within
from thymio_road.sim.ground import FOLLOW, READING, road_truth
from thymio_road.sim.layout import (BARCODE_OUT, CLOCK, GAIN, GROUND_OUT, GROUP, GROUP_SIZE, LEFT, LOG, LOGGED, MOTOR,
                                    ODOM, ODOM_SCALE, OFF_ROAD_FOR, PAIR, POINT_WIDTH, POSE, POSE_WIDTH, PROX_COUNT,
                                    PROX_OUT, QUEUE_COLUMNS, QUEUE_DONE, QUEUE_LEFT, QUEUE_RIGHT, QUEUE_ROBOT, RIGHT,
                                    ROAD_LOSSES, SETTLED, STOPPED_FOR, TARGET, THETA, TIME_ON_ROAD, TIME_SENSED, WHEEL,
                                    X, Y)
from thymio_road.sim.motion import command, move_group_logged, move_logged
from thymio_road.sim.noise import NoiseStream
from thymio_road.sim.sensors import GroundSensing, ProxSensing, sheet_walls

#: A robot whose follow sensor stays off the road this long has lost the road (one loss).
ROAD_LOSS_TIME = 0.3
#: Longest integration step while a wheel is still approaching its target speed.
LAG_STEP = 0.02
#: Displacements logged before they are added to the distance travelled (World._add_distances).
DISTANCE_LOG = 4096


@dataclass(frozen=True)
class RobotSpec:
    """A robot placed in the world; static robots (traffic lights) never move."""

    name: str
    x: float
    y: float
    theta: float
    static: bool = False


@dataclass(frozen=True)
class WorldParams:
    """Physical parameters; defaults are the report's and Enki's numbers (docs/design.md: Thymio facts)."""

    #: Tick of the world: sensor phases are multiples of it, and it bounds the integration step
    #: whenever robots are close enough to touch.
    physics_dt: float = param(0.01, 0.0005, 0.05, 's')
    #: Noise on each motor command, relative (Enki: ±2.7 %).
    motor_noise: float = param(rm.MOTOR_NOISE, 0.0, 1.0)
    #: Time constant of the wheels reaching a new target speed (the Thymio's motor regulator);
    #: 0 makes speed changes instant.
    motor_time_constant: float = param(0.0, 0.0, 10.0, 's')
    #: Robot-to-robot spread of the motor gain (the report calibrates it away, §10).
    motor_gain_spread: float = param(0.03, 0.0, 0.5, why='a wider spread drives robots off the road')
    #: Spread of the difference between a robot's two wheels (relative; ±1 % by default).
    wheel_imbalance_spread: float = param(0.01, 0.0, 0.5)
    #: Noise of a ground sensor reading (raw units of 0..1023).
    ground_noise: float = param(rm.GROUND_NOISE, 0.0, 1023.0, 'sensor units')
    #: Noise of a proximity sensor reading (raw units).
    prox_noise: float = param(rm.PROX_NOISE, 0.0, rm.PROX_M, 'sensor units')
    #: Relative scale error of the wheel odometry, drawn once per robot.
    odometry_scale_spread: float = param(0.01, 0.0, 0.5)
    #: Cell size of the published ``/map`` (m; a whole multiple of the map's raster). The
    #: sensors sample the map's own raster (1 mm); 5 mm keeps the final map's /map at 1.5 MB
    #: instead of 38 MB, for RViz and the bags.
    map_resolution: float = param(0.005, 0.0, 0.1, 'm', low_open=True)

    def __post_init__(self) -> None:
        schema.check(self)


class World:
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
        # The robots' state in two arrays (floats, integers) and the kernels' counters and log in
        # a third (sim/layout.py): the attributes below are views of them, and a compiled tick is
        # given a few arrays instead of thirty (a kernel call costs about 0.1 µs per array).
        self._robots = np.zeros((n, layout.ROBOT_COLUMNS))
        self._robot_ints = np.zeros((n, layout.ROBOT_INT_COLUMNS), dtype=np.int64)
        self._ints = np.zeros(LOG + DISTANCE_LOG + 2 * n + 2, dtype=np.int64)
        #: The noise streams' buffers, rows of one array (each refills its own row in place).
        self._noise = np.empty((layout.NOISE_ROWS, len(self.ground_noise.buffer)))
        for row, stream in ((layout.NOISE_GROUND, self.ground_noise), (layout.NOISE_PROX, self.prox_noise),
                            (layout.NOISE_MOTOR, self.motor_noise)):
            self._noise[row] = stream.buffer
            cursor = layout.CURSORS + row
            stream.buffer, stream.cursor = self._noise[row], self._ints[cursor:cursor + 1]
        robots = self._robots
        self.poses, self.odom = robots[:, POSE:POSE + POSE_WIDTH], robots[:, ODOM:ODOM + POSE_WIDTH]
        self._target, self._wheel = robots[:, TARGET:TARGET + PAIR], robots[:, WHEEL:WHEEL + PAIR]
        self.odom_scale, self.gain = robots[:, ODOM_SCALE:ODOM_SCALE + PAIR], robots[:, GAIN:GAIN + PAIR]
        self.clock, self.time_sensed = robots[:, CLOCK], robots[:, TIME_SENSED]
        self.time_on_road, self.off_road_for = robots[:, TIME_ON_ROAD], robots[:, OFF_ROAD_FOR]
        self.poses[:] = np.array([(s.x, s.y, s.theta) for s in self.specs], dtype=float).reshape(n, POSE_WIDTH)
        self.movable = np.array([not s.static for s in self.specs], dtype=bool)
        self._targets = self._robot_ints[:, MOTOR:MOTOR + PAIR]
        #: Commands given by :meth:`command_soon`, applied before the world next moves or is asked
        #: for wheel speeds or targets: (robot, left, right) per row, `_queued` of them.
        self._queue = np.zeros((n + 8, QUEUE_COLUMNS), dtype=np.int64)
        self._queue_flat = self._queue.reshape(-1)
        self._queued = 0
        common = 1.0 + self.rng.normal(0.0, params.motor_gain_spread, (n, 1))
        imbalance = self.rng.normal(0.0, params.wheel_imbalance_spread, (n, 1)) / 2
        self.gain[:] = common * np.hstack([1.0 + imbalance, 1.0 - imbalance])
        self.odom_scale[:] = 1.0 + self.rng.normal(0.0, params.odometry_scale_spread, (n, PAIR))
        # Each robot's "prox" event has its own phase in the 0.1 s period, on the world's tick.
        self.slots = int(round(rm.PROX_EVENT_PERIOD / params.physics_dt))
        self.slot = self.rng.integers(0, self.slots, n)
        # ground truth
        self._distance = np.zeros(n)
        self.road_losses = self._robot_ints[:, ROAD_LOSSES]
        self.contacts = np.zeros(n, dtype=int)
        self.ground = GroundSensing(road_map, params.ground_noise)
        walls = sheet_walls(road_map.width, road_map.height) if road_map.walls else None
        self.prox = ProxSensing(walls, params.prox_noise,
                                (road_map.width, road_map.height) if walls is not None else None)
        self.bounds = (road_map.width, road_map.height) if road_map.walls else None
        self.index = {s.name: i for i, s in enumerate(self.specs)}
        #: Centre distance under which two robots may touch before either senses again.
        self.touch_radius = 2 * rm.HULL_BOUND_RADIUS + 2 * rm.PLATEAU_SPEED * rm.PROX_EVENT_PERIOD * 1.5
        #: ... and under which one may see the other with its proximity sensors.
        self.sense_radius = self.touch_radius + rm.PROX_RANGE
        self._touch_radius2 = self.touch_radius ** 2
        #: The kernels' counters (layout.LOGGED, ...: the log's entries, the last group's size,
        #: tick's state, the noise cursors, ...), then the log's robots.
        self._io = self._ints[:LOG]
        self._group = self._robot_ints[:, GROUP]
        #: The proximity rays' edges of walls and near hulls (proximity.prox_rays).
        self._segments = np.empty((layout.SEGMENT_ROWS, len(self.prox.walls) + n * len(rm.HULL)))
        # The displacements not yet added to `distance` (motion.move_logged): robot and (dx, dy).
        self._log_robot = self._ints[LOG:]
        self._log_step = np.zeros((len(self._log_robot), POINT_WIDTH))
        self._instant = params.motor_time_constant == 0
        #: World.tick's results, overwritten at each tick.
        self._outs = np.zeros((n, layout.OUT_COLUMNS), dtype=np.int16)
        self._states = np.zeros((n, layout.STATE_COLUMNS))
        #: A tick is one compiled call with instant wheels on a map without walls (fused.tick).
        self._fused = self._instant and self.bounds is None
        #: Hulls can only overlap when centres are closer than this (squared): else no contact pass.
        self._hull_reach2 = (2 * rm.HULL_BOUND_RADIUS) ** 2
        self._bind_event()
        if not _warm[0]:
            _warm[0] = True
            warm_kernels(self)

    def _bind_event(self) -> None:
        """The fused kernels' packed arguments (fused.event, sense, tick, command_at), bound once:
        the World's constants (layout.PARAMS) and its arrays, grouped as layout.py's tuples.
        """
        m = self.road_map
        params = np.zeros(layout.PARAMS)
        for index, value in ((layout.TOUCH_RADIUS, self.touch_radius), (layout.TOUCH_RADIUS2, self._touch_radius2),
                             (layout.SENSE_R2, self.sense_radius ** 2), (layout.HULL_REACH2, self._hull_reach2),
                             (layout.PROX_REACH2, self.prox.reach * self.prox.reach),
                             (layout.PROX_SIGMA, float(self.prox.noise)), (layout.RESOLUTION, m.resolution),
                             (layout.GROUND_SIGMA, float(self.ground.noise)), (layout.PERIOD, rm.PROX_EVENT_PERIOD),
                             (layout.LOSS_TIME, ROAD_LOSS_TIME), (layout.MOTOR_SIGMA, self.params.motor_noise),
                             (layout.ROWS, m.shape[0]), (layout.COLS, m.shape[1])):
            params[index] = value
        self._params = params
        self._fleet = layout.fleet(robots=self._robots, robot_ints=self._robot_ints, movable=self.movable)
        self._work = layout.work(ints=self._ints, log_step=self._log_step, segments=self._segments)
        self._tables = layout.tiled_tables(response=self.ground.response, road_index=m.road_index,
                                           blind_area=m.blind_area, barcode_index=m.barcode_index)
        self._io_arrays = layout.io(queue=self._queue, outs=self._outs, states=self._states)
        #: The arguments after the robot, time and readings (event) or walls (sense).
        self._event_args = (params, self._fleet, self._work, self._noise, self._tables)
        self._no_grid = fused.no_grid()
        self._tick_args = (self._io_arrays, *self._event_args)
        self._command_args = (params, self._fleet, self._work, self._noise)
        if len(m.barcodes) >= 2 ** 15:
            raise ValueError('World.tick keeps barcode indices as int16: a map has fewer than 32768 barcodes')

    @property
    def distance(self) -> np.ndarray:
        """Distance travelled by each robot (m): the logged displacements are added first."""
        self._add_distances()
        return self._distance

    def _add_distances(self) -> None:
        """Add the logged displacements to `distance` in their order, each with Python's math.hypot
        (the C library's hypot rounds differently in about one case in 170).
        """
        m = int(self._io[LOGGED])
        if not m:
            return
        total = self._distance.tolist()
        hypot = math.hypot
        for j, (dx, dy) in zip(self._log_robot[:m].tolist(), self._log_step[:m].tolist()):
            total[j] += hypot(dx, dy)
        self._distance[:] = total
        self._io[LOGGED] = 0

    @property
    def target(self) -> np.ndarray:
        """Each robot's wheel target speeds (m/s), the queued commands applied first."""
        if self._queued:
            self._apply_queued()
        return self._target

    @property
    def wheel(self) -> np.ndarray:
        """Each robot's wheel speeds (m/s), the queued commands applied first."""
        if self._queued:
            self._apply_queued()
        return self._wheel

    @property
    def targets(self) -> np.ndarray:
        """Each robot's motor targets in Aseba units, the queued commands applied first."""
        if self._queued:
            self._apply_queued()
        return self._targets

    @property
    def time(self) -> float:
        return float(self.clock.max()) if len(self.clock) else 0.0

    # --- actuation -----------------------------------------------------------------------------
    def command_soon(self, i: int, left: int, right: int, at: float) -> None:
        """:meth:`command`, applied when the world next moves or is asked for wheels or targets
        (by the next tick's compiled call, without a call of its own) when robot i is at time
        `at` already, as after its own event; else at once. The commands keep their order, and
        their motor noise is drawn in it.
        """
        k = self._queued
        if self._fused and k < len(self._queue) and self.clock[i] == at:
            flat, row = self._queue_flat, QUEUE_COLUMNS * k
            flat[row + QUEUE_ROBOT] = i
            flat[row + QUEUE_LEFT] = left
            flat[row + QUEUE_RIGHT] = right
            self._queued = k + 1
        else:
            self.command(i, left, right, at)

    def _apply_queued(self) -> None:
        """Apply the commands of :meth:`command_soon` now, in order (each at its robot's clock)."""
        queued, self._queued = self._queued, 0
        start = int(self._io[QUEUE_DONE])
        self._io[QUEUE_DONE] = 0
        for i, left, right in self._queue[start:queued].tolist():
            self.command(i, left, right, float(self.clock[i]))

    def command(self, i: int, left: int, right: int, at: float | None = None) -> None:
        """Set motor targets (Aseba units) from time `at` on; the motor noise is drawn per command."""
        if self._queued:
            self._apply_queued()
        if at is not None and self._instant:
            while not fused.command_at(i, at, left, right, *self._command_args):
                self._make_room(self.motor_noise, 2)
            return
        if not self.movable[i]:
            return
        if at is not None:
            self._move(i, at)
        nl, nr = self.motor_noise.pair()
        command(i, left, right, nl, nr, self.params.motor_noise, self._robots, self._robot_ints,
                self.params.motor_time_constant == 0)

    # --- time ----------------------------------------------------------------------------------
    def sync(self, i: int, t: float) -> None:
        """Bring robot i and every robot it could sense or touch to time t; resolve contacts."""
        if self._queued:
            self._apply_queued()
        self._move(i, t)
        n = within(i, self.poses, self.sense_radius ** 2, self._group)
        if n > 1:
            group = self._group[:n].copy()
            self._move_group(group, t)
            self._resolve(group)
        elif self.bounds is not None and self.movable[i]:
            sub = self.poses[i:i + 1]
            collision.resolve(sub, self.movable[i:i + 1], self.bounds)
            self.poses[i] = sub[0]

    def settle_contacts(self, t: float) -> None:
        """Every tick: bring robots that are close to one another to t and resolve their contacts.

        Far-apart robots are left on their own clocks; close ones are kept in step so that an
        overlap can never outlive one tick. A sweep along x finds them (no N×N matrix).
        """
        if self._queued:
            self._apply_queued()
        if len(self.poses) < 2:
            return
        n = close_robots(self.poses, self.touch_radius, self._touch_radius2, self._group)
        if n == 0:
            return
        group = self._group[:n].copy()
        self._move_group(group, t)
        self._resolve(group)

    def _move_group(self, group: np.ndarray, t: float) -> None:
        """:meth:`_move` for each robot of the group, in one compiled call when wheels are instant."""
        if self.params.motor_time_constant != 0:
            for j in group:
                self._move(int(j), t)
            return
        while not move_group_logged(group, len(group), t, self._robots, self.movable, self._ints, self._log_step):
            self._add_distances()

    def _resolve(self, group: np.ndarray) -> None:
        """Resolve the contacts among a group; skipped when no two hulls can touch (nothing to do)."""
        if self.bounds is None and not any_pair_within(self.poses, group, self._hull_reach2):
            return
        sub = self.poses[group]
        for a, b in collision.resolve(sub, self.movable[group], self.bounds):
            self.contacts[group[[a, b]]] += 1
        self.poses[group] = sub

    def snapshot(self, t: float) -> np.ndarray:
        """Poses of every robot at time t, extrapolated along their arcs (the world is unchanged)."""
        if self._queued:
            self._apply_queued()
        poses = self.poses.copy()
        for i in range(len(poses)):
            dt = t - self.clock[i]
            if dt > 0 and self.movable[i]:
                self._drive(i, dt, poses[i], None, self.wheel[i].copy())
        return poses

    def _move(self, i: int, t: float) -> None:
        if self._queued:
            self._apply_queued()
        if self.params.motor_time_constant == 0:
            # The common case, compiled: the hot path of every robot event.
            if self._io[LOGGED] >= len(self._log_robot):
                self._add_distances()
            move_logged(i, t, self._robots, self.movable, self._ints, self._log_step)
            return
        dt = t - self.clock[i]
        if dt <= 0:
            return
        self.clock[i] = t
        if not self.movable[i]:
            return
        pose = self.poses[i]
        x0, y0 = pose[X], pose[Y]
        if self.wheel[i].any() or self.target[i].any():
            self._drive(i, dt, pose, self.odom[i], self.wheel[i])
        else:
            return
        self.distance[i] += math.hypot(pose[X] - x0, pose[Y] - y0)

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
                _arc(odom, vl * self.odom_scale[i, LEFT], vr * self.odom_scale[i, RIGHT], h)
        if tau == 0:
            wheel[:] = target

    # --- sensing -------------------------------------------------------------------------------
    def event(self, i: int, t: float) -> tuple[np.ndarray, np.ndarray, int]:
        """A robot's "prox" event: :meth:`sync` to t, then :meth:`read_prox`, :meth:`read_ground`
        and :meth:`record_road_truth`, the same values in fewer compiled calls (fused.event).

        Returns (horizontal, ground, barcode): the 7 and 2 raw values as int16 arrays (fresh ones:
        the caller may keep them) and the barcode under the reading sensor.
        """
        if self._queued:
            self._apply_queued()
        if not self._instant:
            self.sync(i, t)
            return self.read_prox(i), np.asarray(self.read_ground(i), dtype=np.int16), self.record_road_truth(i)
        out = np.empty(BARCODE_OUT, dtype=np.int16)
        if self.bounds is None:
            k = fused.event(i, t, out, *self._event_args, self._no_grid)
            while k == fused.NEED_ROOM:
                self._make_room(self.prox_noise, PROX_COUNT, self.ground_noise, PAIR)
                k = fused.event(i, t, out, *self._event_args, self._no_grid)
            if k != fused.NEED_RESOLVE:
                return out[PROX_OUT:GROUND_OUT], out[GROUND_OUT:GROUND_OUT + PAIR], k
            self._resolve(self._group[:int(self._io[GROUP_SIZE])].copy())
        else:
            self.sync(i, t)
        walls = self.prox.walls_near(self.poses[i]) if len(self.prox.walls) else self.prox.walls
        while True:
            k = fused.sense(i, out, walls, *self._event_args)
            if k != fused.NEED_ROOM:
                return out[PROX_OUT:GROUND_OUT], out[GROUND_OUT:GROUND_OUT + PAIR], k
            self._make_room(self.prox_noise, PROX_COUNT, self.ground_noise, PAIR)

    def tick(self, t: float, due: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A world tick: :meth:`settle_contacts`, then :meth:`event` for each robot of `due` in
        order, in one compiled call when it can (fused.tick).

        Returns, per due robot k: outs[k] (its 7 proximity then 2 ground values, then the barcode
        under its reading sensor, int16) and states[k], its pose, odometry pose and wheel speeds
        right after its event (8 values), which the tick's later events may change. Both arrays
        are the world's own, overwritten by the next tick: read them before (states may have more
        rows than robots were due).
        """
        count = len(due)
        outs, states = self._outs[:count], self._states
        if not self._fused:
            if self._queued:
                self._apply_queued()
            self.settle_contacts(t)
            for k, i in enumerate(due.tolist()):
                horizontal, ground, outs[k, BARCODE_OUT] = self.event(i, t)
                outs[k, PROX_OUT:GROUND_OUT], outs[k, GROUND_OUT:GROUND_OUT + PAIR] = horizontal, ground
                fused.state(i, self._robots, states[k])
            return outs, states
        settle, start = True, 0
        while (start := fused.tick(t, settle, start, due, self._queued, *self._tick_args)) >= 0:
            why = self._io[STOPPED_FOR]
            settle = not self._io[SETTLED]
            if why == fused.NEED_MOTOR_ROOM:
                self.motor_noise.ensure(PAIR)
            elif why == fused.NEED_ROOM:
                self._make_room(self.prox_noise, PROX_COUNT, self.ground_noise, PAIR)
            elif why == fused.SETTLE_RESOLVE:
                self._resolve(self._group[:int(self._io[GROUP_SIZE])].copy())
            else:  # NEED_RESOLVE: the robot at `start` moved; its contacts, then its readings
                self._resolve(self._group[:int(self._io[GROUP_SIZE])].copy())
                i = int(due[start])
                while (k := fused.sense(i, outs[start], self.prox.walls, *self._event_args)) == fused.NEED_ROOM:
                    self._make_room(self.prox_noise, PROX_COUNT, self.ground_noise, PAIR)
                outs[start, BARCODE_OUT] = k
                fused.state(i, self._robots, states[start])
                start += 1
        self._queued = 0
        self._io[QUEUE_DONE] = 0
        return outs, states

    def _make_room(self, *streams_and_counts) -> None:
        """Refill the noise streams that lack samples, as their take() would, and empty the log."""
        for stream, k in zip(streams_and_counts[::2], streams_and_counts[1::2]):
            stream.ensure(k)
        self._add_distances()

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

    def record_road_truth(self, i: int, period: float = rm.PROX_EVENT_PERIOD) -> int:
        """Ground-truth road keeping, sampled at each robot's event: time on road, losses.

        Returns :meth:`barcode_under` for the same pose: one compiled call gives both.
        """
        rows, cols = self.road_map.shape
        return road_truth(i, self._robots, self._robot_ints, self._tables, rows, cols, self.road_map.resolution,
                          period, ROAD_LOSS_TIME)

    def road_under(self, i: int) -> str | None:
        """Id of the printed road under robot i's follow (left) ground sensor, or None."""
        x, y, th = self.poses[i]
        gx, gy = rm.GROUND_SENSORS_TUPLE[FOLLOW]
        c, s = math.cos(th), math.sin(th)
        r, col = self.road_map.pixel_scalar(x + c * gx - s * gy, y + s * gx + c * gy)
        k = int(self.road_map.road_index[r, col])
        return self.road_map.roads[k].id if k >= 0 else None

    def barcode_under(self, i: int) -> int:
        """Index of the barcode (or mark) under robot i's right (reading) ground sensor, or -1."""
        x, y, th = self.poses[i]
        gx, gy = rm.GROUND_SENSORS_TUPLE[READING]
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
    pose[X], pose[Y], pose[THETA] = x, y, (th2 + math.pi) % (2 * math.pi) - math.pi


#: Whether this process has compiled (or loaded) the kernels (warm_kernels).
_warm = [False]


def warm_kernels(world: 'World', report: Any = None) -> float:
    """Compile the kernels that a run of `world` calls, or load them from numba's cache, before
    it runs; returns the seconds it took. The first run after an install or an update compiled
    them inside its first steps for tens of seconds, silently, as a slow start in the progress
    bar (issue #28): when numba's cache has no kernels of this version yet, this says so on
    stderr before and after. Works on a copy of the world (the world itself is untouched), by a
    few ticks, commands and events.
    """
    import copy
    import sys
    import time
    report = sys.stderr if report is None else report
    marker = _warm_marker()
    cold = marker is not None and not marker.exists()
    if cold:
        print("thymio-road: compiling the simulator's kernels (numba; once after an install or an "
              'update, some tens of seconds)...', file=report, flush=True)
    began = time.perf_counter()
    shared = {id(world.road_map): world.road_map, id(world.ground.response): world.ground.response}
    shared.update({id(array): array for array in world._tables})
    try:
        twin = copy.deepcopy(world, shared)
        dt = twin.params.physics_dt
        for k in range(2 * twin.slots if len(twin.specs) else 0):
            due = twin.due(k)
            twin.tick(k * dt, due)
            for i in due.tolist():  # as the world node commands a robot after its event
                twin.command_soon(i, 100, 120, k * dt)
        if len(twin.specs):
            twin.command(0, 50, 60, 2 * twin.slots * dt)
            twin.event(0, 2 * twin.slots * dt)
    except Exception:  # noqa: BLE001 - warming up must never stop a run: the run compiles what is left
        pass
    took = time.perf_counter() - began
    if cold:
        print(f"thymio-road: the simulator's kernels are compiled ({took:.0f} s); later runs load them",
              file=report, flush=True)
        try:
            marker.touch()
        except OSError:
            pass
    return took


def _warm_marker() -> Any:
    """A file beside numba's cache of the tick kernel, named for the kernels' version, that says
    they were compiled; None when numba keeps no cache there.
    """
    from pathlib import Path

    import numba

    from thymio_road.sim.kernel_cache import DIGEST
    folder = getattr(getattr(fused.tick, '_cache', None), '_cache_path', None)
    if not folder:
        return None
    return Path(folder) / f'thymio_road-kernels-{DIGEST:08x}-numba{numba.__version__}.compiled'


def start_pose_on_road(road_map: RoadMap, road_id: str, s: float, grey_offset: float = -0.0018
                       ) -> tuple[float, float, float]:
    """Pose that puts the follow (left) ground sensor on the road at arc length s.

    The sensor sits at the lateral offset where the grey reads the reference (about 1.8 mm
    right of the centre line for GREY_REF 500), the robot heading along the road.
    """
    road = road_map.road(road_id)
    gx, gy = rm.GROUND_SENSORS[FOLLOW]
    x, y, th = road.pose_at(s)
    # sensor point on the road, then back to the axle centre
    sx, sy = x - math.sin(th) * grey_offset, y + math.cos(th) * grey_offset
    return (sx - math.cos(th) * gx + math.sin(th) * gy, sy - math.sin(th) * gx - math.cos(th) * gy, th)
