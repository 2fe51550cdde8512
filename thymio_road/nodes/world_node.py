# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""World node: the simulated printed map and Thymios, publishing the per-robot sensor topics.

Per robot namespace (docs/design.md, "Interface contract"): ``prox/horizontal``, ``prox/ground/delta`` (10 Hz, one
"prox" event with a per-robot phase), ``proximity/<name>`` and ``ground/left|right`` (Range, as
jeguzzi/ros-thymio's driver), ``odom`` and TF, and
``ground_truth`` (nav_msgs/Odometry in the map frame); subscribes ``cmd_vel`` and
``led/body/top``. World level: ``/map`` and ``/tf_static`` (latched), ``/tf``, ``/clock``,
``/world/markers``, ``/world/map_description`` (the map file's YAML, latched) and
``/world/events`` (ground truth as JSON: a robot's reading sensor entering a barcode or mark).
Topics nobody listens to are not built, as rclpy skips them too.
"""
from __future__ import annotations

from functools import partial
import json
import math
from pathlib import Path
import time
from typing import Any

import numpy as np

from thymio_road.nodes import msgs
from thymio_road.nodes.params import declare, declare_fields, scenario_of_node
from thymio_road.scenario import robot_specs, world_params
from thymio_road.sim import robot_model as rm
from thymio_road.sim.layout import BARCODE_OUT, GROUND_OUT, PAIR, POSE_WIDTH, PROX_COUNT, PROX_OUT, STATE_POSE
from thymio_road.sim.world import World, WorldParams

#: Published poses further apart than this (ns) are a gap, not motion (as analysis/metrics.path_length).
TRUTH_GAP_NS = 1_000_000_000

MARKER_PERIOD_TICKS = 10
#: The proximity Range's cone and its range for every raw value (rm.prox_distance's, computed once).
_PROX_FOV = float(2 * rm.PROX_RAY_ANGLES[2])
_PROX_DISTANCES = rm.prox_distance(np.arange(int(rm.PROX_M) + 1)).tolist()
#: Namespaces of /world/markers: the robots, and the traffic lights (static Thymios).
ROBOTS_NAMESPACE, LIGHTS_NAMESPACE = 'robots', 'lights'
MARKER_NAMESPACES = (ROBOTS_NAMESPACE, LIGHTS_NAMESPACE)


class WorldNode:
    """Owns a :class:`~thymio_road.sim.world.World` and steps it on a timer of `physics_dt`."""

    def __init__(self, node: Any) -> None:
        self.node = node
        self.scenario = scenario_of_node(node)
        # Robots that are real Thymios (launch argument `real`) are left to their drivers.
        real = {name for name in declare(node, 'real_robots', '').split(',') if name}
        #: Raw ground value from which ``ground/<side>`` reports the ground as seen (the driver's 200).
        self.ground_threshold = declare(node, 'ground_threshold', msgs.GROUND_THRESHOLD)
        specs = [spec for spec in robot_specs(self.scenario) if spec.name not in real]
        unknown = sorted(real - {r.name for r in self.scenario.robots})
        if unknown:
            raise ValueError(f"world: parameter real_robots: no robot '{unknown[0]}' in {self.scenario.source}")
        # Declared with the dataclass's types, whatever the YAML wrote (rclpy types parameters).
        params = WorldParams(**declare_fields(node, WorldParams, world_params(self.scenario)))
        try:
            self.scenario.road_map.cell_factor(params.map_resolution)  # /map's cells: checked here
        except ValueError as exc:
            raise ValueError(f'world: parameter map_resolution: {exc}') from None
        self.world = World(self.scenario.road_map, specs, params,
                           seed=self.scenario.seed)
        self.dt = self.world.params.physics_dt
        self.tick = 0
        # Simulated time starts once every simulated robot's controller is connected (its cmd_vel
        # has a publisher), so that a controller whose process or DDS discovery is late does not
        # leave its robot standing while the others drive: the same run as the embedded runtime,
        # where every node exists before the first tick. `start_timeout` (wall s, 0: do not wait)
        # bounds the wait, for graphs whose robots are driven by something else.
        self.start_timeout = float(declare(node, 'start_timeout', 30.0))
        self._waiting = [s.name for s in self.world.specs if not s.static]
        self._wait_since: float | None = None
        self.names = [s.name for s in self.world.specs]
        self.led = {name: (0.0, 0.0, 0.0) for name in self.names}

        self.clock_pub = node.create_publisher(msgs.Clock, '/clock', msgs.DEFAULT)
        self.tf_pub = self.tf_static_pub = None
        if msgs.TFMessage is not None:
            self.tf_pub = node.create_publisher(msgs.TFMessage, '/tf', msgs.qos(100))
            self.tf_static_pub = node.create_publisher(msgs.TFMessage, '/tf_static', msgs.LATCHED)
        else:
            node.get_logger().warning(msgs.TF_MISSING)
        self.map_pub = node.create_publisher(msgs.OccupancyGrid, '/map', msgs.LATCHED)
        self.marker_pub = node.create_publisher(msgs.MarkerArray, '/world/markers', msgs.DEFAULT)
        self.map_text_pub = node.create_publisher(msgs.String, '/world/map_description', msgs.LATCHED)
        self.event_pub = node.create_publisher(msgs.String, '/world/events', msgs.qos(100))
        self.on_barcode = [-1] * len(self.world.specs)
        self.pubs = [self._robot_publishers(name) for name in self.names]
        #: Per robot: (publisher, frame) of each proximity sensor's Range, in Aseba order.
        self.range_pubs = [[(pubs[sensor], f'{name}/proximity_{sensor}_link') for sensor in rm.PROX_NAMES]
                           for name, pubs in zip(self.names, self.pubs)]
        #: The embedded runtime's fast path (runtime/run.py): per robot, a function called with the
        #: event's (ground, horizontal) values instead of publishing prox/ground/delta and
        #: prox/horizontal, set while its controller is those topics' only reader.
        self.direct: list[Any] = [None] * len(self.names)
        #: ... and per robot, called with the ground_truth message's (x, y, qx, qy, qz, qw) instead of
        #: publishing it, while the IR medium is its only reader.
        self.truth_direct: list[Any] = [None] * len(self.names)
        #: ... and per robot, True while none of its Range, odom, ground_truth (other than by
        #: truth_direct) and /tf messages has a reader: they are not even looked at.
        self.quiet: list[bool] = [False] * len(self.names)
        #: Per robot, the last two ground truths it published, published or not (fast path): what
        #: the embedded run's probes measure, as a bag would give them to `thymio-road analyze`
        #: (analysis/sampling.py): stamp ns, x, y, qz, qw of the one before, then of the last (NaN:
        #: none yet).
        self.truth_log: list[tuple[float, ...]] = [(math.nan,) * 10] * len(self.names)
        #: ... and the distance between them, summed (m): the path as the published poses draw it.
        self.truth_distance = [0.0] * len(self.names)
        self._stamp_ns = 0
        #: Per tick of the event period: the robots whose event it is (an array for the world, a list).
        self._due = [(due, due.tolist()) for due in (self.world.due(k) for k in range(self.world.slots))]
        self._slots = self.world.slots
        for i, name in enumerate(self.names):
            node.create_subscription(msgs.Twist, f'/{name}/cmd_vel', partial(self._on_cmd_vel, i),
                                     msgs.DEFAULT)
            node.create_subscription(msgs.ColorRGBA, f'/{name}/led/body/top',
                                     partial(self._on_led, name), msgs.DEFAULT)
        self._layout = msgs.Int16MultiArray().layout
        self.map_pub.publish(self._occupancy_grid())
        self.map_text_pub.publish(msgs.String(data=Path(self.scenario.road_map.source).read_text()))
        if self.tf_static_pub is not None:
            self.tf_static_pub.publish(self._static_transforms())
        node.create_timer(self.dt, self._on_tick)

    def _controllers_connected(self) -> bool:
        """Whether every robot's cmd_vel has a publisher yet (or the wait timed out)."""
        self._waiting = [name for name in self._waiting if not self.node.count_publishers(f'/{name}/cmd_vel')]
        if not self._waiting:
            return True
        now = time.monotonic()
        if self._wait_since is None:
            self._wait_since = now
        if self.start_timeout <= 0 or now - self._wait_since >= self.start_timeout:
            self.node.get_logger().warning(
                f"world: starting without controllers for {', '.join(self._waiting)} "
                f'(no cmd_vel publisher after {now - self._wait_since:.0f} s)')
            self._waiting = []
            return True
        return False

    def _robot_publishers(self, name: str) -> dict[str, Any]:
        create = self.node.create_publisher
        pubs = {
            'horizontal': create(msgs.Int16MultiArray, f'/{name}/prox/horizontal', msgs.SENSOR),
            'ground': create(msgs.Int16MultiArray, f'/{name}/prox/ground/delta', msgs.SENSOR),
            'odom': create(msgs.Odometry, f'/{name}/odom', msgs.SENSOR),
            'truth': create(msgs.Odometry, f'/{name}/ground_truth', msgs.SENSOR),
        }
        for sensor in rm.PROX_NAMES:
            pubs[sensor] = create(msgs.Range, f'/{name}/proximity/{sensor}', msgs.SENSOR)
        for side in msgs.GROUND_NAMES:
            pubs[f'ground_{side}'] = create(msgs.Range, f'/{name}/ground/{side}', msgs.SENSOR)
        return pubs

    @property
    def now(self) -> float:
        return self.tick * self.dt

    # --- callbacks -----------------------------------------------------------------------------
    def _on_cmd_vel(self, i: int, msg: Any) -> None:
        left, right = rm.twist_to_units(msg.linear.x, msg.angular.z)
        self.world.command(i, left, right, at=self.now)

    def command(self, i: int, left: int, right: int) -> None:
        """Robot i's wheel targets as the controller computed them (the fast path's cmd_vel),
        applied by the world's next step (World.command_soon: the same run).
        """
        self.world.command_soon(i, left, right, self.tick * self.dt)

    def _on_led(self, name: str, msg: Any) -> None:
        self.led[name] = (msg.r, msg.g, msg.b)

    def _on_tick(self) -> None:
        if self._waiting and not self._controllers_connected():
            return
        self.tick += 1
        t = self.tick * self.dt  # self.now, without the property call (once per tick)
        self._stamp_ns = int(round(t * 1e9))   # msgs.stamp(t)'s
        if self.clock_pub.get_subscription_count():
            self.clock_pub.publish(msgs.Clock(clock=msgs.stamp(t)))
        due, due_list = self._due[self.tick % self._slots]
        outs, states = self.world.tick(t, due)
        if due_list:
            for i, row, state in zip(due_list, outs.tolist(), states[:len(due_list)].tolist()):
                self._prox_event(i, t, row[PROX_OUT:PROX_OUT + PROX_COUNT], row[GROUND_OUT:GROUND_OUT + PAIR],
                                 row[BARCODE_OUT], state)
        if self.tick % MARKER_PERIOD_TICKS == 0 and self.marker_pub.get_subscription_count():
            self.marker_pub.publish(self._markers(t))

    def _prox_event(self, i: int, t: float, horizontal: list[int], ground: list[int], barcode: int,
                    state: list[float]) -> None:
        """Publish robot i's event: its readings (lists of int, as rclpy's int16[] fields give
        them), the barcode under its reading sensor and its state right after the event (pose,
        odometry pose, wheel speeds: a row of the tick's STATES, as a list).
        """
        if barcode != self.on_barcode[i]:
            self._barcode_truth(i, t, barcode)
        last = self.truth_log[i][5:]
        x, y, th = state[STATE_POSE:STATE_POSE + POSE_WIDTH]
        half = th / 2   # the message's quaternion (_odometry)
        qz, qw = math.sin(half), math.cos(half)
        if self._stamp_ns - last[0] <= TRUTH_GAP_NS:   # False while last is NaN
            self.truth_distance[i] += math.hypot(x - last[1], y - last[2])
        self.truth_log[i] = (*last, self._stamp_ns, x, y, qz, qw)
        direct = self.direct[i]
        if direct is not None:  # the embedded runtime: the messages' values, without the messages
            direct(ground, horizontal)
        else:
            pubs = self.pubs[i]
            pubs['horizontal'].publish(msgs.Int16MultiArray(layout=self._layout,
                                                            data=msgs.int16_array(horizontal)))
            pubs['ground'].publish(msgs.Int16MultiArray(layout=self._layout, data=msgs.int16_array(ground)))
        if self.quiet[i]:
            truth = self.truth_direct[i]
            if truth is not None:
                truth(x, y, 0.0, 0.0, qz, qw)
            return
        pubs = self.pubs[i]
        name = self.names[i]
        stamp = msgs.stamp(t)
        for k, (pub, frame_id) in enumerate(self.range_pubs[i]):
            if pub.get_subscription_count():
                pub.publish(self._range(frame_id, horizontal[k], stamp))
        for side, value in zip(msgs.GROUND_NAMES, ground):
            pub = pubs[f'ground_{side}']
            if pub.get_subscription_count():
                pub.publish(msgs.ground_range(stamp, f'{name}/ground_{side}_link', value, self.ground_threshold))
        self._publish_odometry(i, name, stamp, state)

    def _barcode_truth(self, i: int, t: float, k: int) -> None:
        """Ground truth for scoring reads: when the reading sensor enters barcode k (or a mark)."""
        if k != self.on_barcode[i]:
            self.on_barcode[i] = k
            if k >= 0:
                bar = self.scenario.road_map.barcodes[k]
                self.event_pub.publish(msgs.String(data=json.dumps({
                    't': round(t, 3), 'kind': 'barcode_enter', 'robot': self.names[i], 'barcode': bar.id,
                    'code': bar.code, 'bits': bar.bits}, sort_keys=True)))

    # --- messages ------------------------------------------------------------------------------
    def _publish_odometry(self, i: int, name: str, stamp: Any, state: list[float]) -> None:
        """odom, ground_truth and /tf of robot i's `state` (pose, odometry pose, wheel speeds)."""
        pubs = self.pubs[i]
        pose, odom, (vl, vr) = state[0:3], state[3:6], state[6:8]
        v, w = (vl + vr) / 2, (vr - vl) / rm.AXLE_LENGTH
        if pubs['odom'].get_subscription_count():
            pubs['odom'].publish(_odometry(stamp, f'{name}/odom', f'{name}/base_link', odom, v, w))
        truth = self.truth_direct[i]
        if truth is not None:
            x, y, th = pose
            truth(x, y, 0.0, 0.0, math.sin(th / 2), math.cos(th / 2))
        elif pubs['truth'].get_subscription_count():
            pubs['truth'].publish(_odometry(stamp, 'map', f'{name}/base_link', pose, v, w))
        if self.tf_pub is not None and self.tf_pub.get_subscription_count():
            x, y, th = pose
            xo, yo, tho = odom
            phi = th - tho
            c, s = math.cos(phi), math.sin(phi)
            correction = (x - (c * xo - s * yo), y - (s * xo + c * yo), phi)
            self.tf_pub.publish(msgs.TFMessage(transforms=[
                msgs.transform_stamped(stamp, 'map', f'{name}/odom', correction),
                msgs.transform_stamped(stamp, f'{name}/odom', f'{name}/base_link', odom),
            ]))

    def _range(self, frame_id: str, value: int, stamp: Any) -> Any:
        """A proximity sensor's Range cone for raw value `value` (0..PROX_M)."""
        return msgs.Range(
            header=msgs.Header(stamp=stamp, frame_id=frame_id),
            radiation_type=msgs.Range.INFRARED, field_of_view=_PROX_FOV,
            min_range=0.0, max_range=rm.PROX_RANGE,
            range=_PROX_DISTANCES[value] if 0 <= value < len(_PROX_DISTANCES) else float(rm.prox_distance(value)))

    def _static_transforms(self) -> Any:
        stamp = msgs.stamp(0.0)
        transforms = []
        for name in self.names:
            for sensor, (x, y, a) in zip(rm.PROX_NAMES, rm.PROX_SENSORS):
                transforms.append(msgs.transform_stamped(stamp, f'{name}/base_link',
                                                         f'{name}/proximity_{sensor}_link', (x, y, a)))
            for side, (x, y) in zip(msgs.GROUND_NAMES, rm.GROUND_SENSORS_TUPLE):
                transforms.append(msgs.ground_link(stamp, f'{name}/base_link', f'{name}/ground_{side}_link', x, y))
        return msgs.TFMessage(transforms=transforms)

    def _occupancy_grid(self) -> Any:
        """The printed darkness as occupancy (white paper 0, black ink 100: RViz shows the road)
        on cells of `map_resolution`; the sensors keep the map's own raster.
        """
        m = self.scenario.road_map
        dark = m.occupancy(self.world.params.map_resolution)
        rows, cols = dark.shape
        grid = msgs.OccupancyGrid()
        grid.header = msgs.Header(stamp=msgs.stamp(0.0), frame_id='map')
        grid.info.resolution = float(self.world.params.map_resolution)
        grid.info.width, grid.info.height = cols, rows
        grid.info.origin.orientation.w = 1.0
        grid.data = msgs.int8_array(dark.reshape(-1))
        return grid

    def _markers(self, t: float) -> Any:
        stamp = msgs.stamp(t)
        markers = []
        for i, name in enumerate(self.names):
            x, y, th = self.world.poses[i]
            r, g, b = self.led[name]
            static = self.world.specs[i].static
            # Traffic lights (static Thymios) in their own namespace, a little taller.
            body = msgs.Marker(header=msgs.Header(stamp=stamp, frame_id='map'),
                               ns=LIGHTS_NAMESPACE if static else ROBOTS_NAMESPACE,
                               id=i, type=3, action=0)  # CYLINDER, ADD
            body.pose.position = msgs.Point(x=float(x), y=float(y), z=0.035 if static else 0.025)
            body.pose.orientation = msgs.quaternion_from_yaw(float(th))
            body.scale = msgs.Vector3(x=0.11, y=0.11, z=0.07 if static else 0.05)
            body.color = msgs.ColorRGBA(r=float(r), g=float(g), b=float(b), a=1.0) if (r or g or b) \
                else msgs.ColorRGBA(r=0.9, g=0.9, b=0.9, a=1.0)
            markers.append(body)
        return msgs.MarkerArray(markers=markers)


def _odometry(stamp: Any, frame: str, child: str, pose: Any, v: float, w: float) -> Any:
    odom = msgs.Odometry(header=msgs.Header(stamp=stamp, frame_id=frame), child_frame_id=child)
    # Into the default Point and Quaternion (0, 0, 0, 1): the values of Point(x, y, 0) and
    # quaternion_from_yaw, without building them again.
    p = odom.pose.pose
    p.position.x, p.position.y = float(pose[0]), float(pose[1])
    half = float(pose[2]) / 2
    p.orientation.z, p.orientation.w = math.sin(half), math.cos(half)
    odom.twist.twist.linear.x = float(v)
    odom.twist.twist.angular.z = float(w)
    return odom


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_world``)."""
    from thymio_road.nodes.ros_main import spin
    spin('world', WorldNode, args)
