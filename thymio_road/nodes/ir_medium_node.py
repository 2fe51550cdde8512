# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""IR medium node: Thymio proximity communication between the simulated robots.

The channel is :mod:`swarm_comm.prox_comm` (Enki's model, parameter set ``model``: ``enki_doc``,
the default, or ``enki_code``). Per robot namespace (docs/design.md, "Interface contract") the node subscribes to
``comm/tx`` (std_msgs/Int16; 0 sends nothing; 11 bits, values beyond are clipped with a
warning), to ``comm/enable`` (std_msgs/Bool; disabled until enabled, as on the real robot;
enabling turns on both sending and receiving) and to ``ground_truth`` (the world's poses). It
publishes ``comm/rx`` (std_msgs/Int16MultiArray, 15 values: rx, payloads[7], intensities[7]).
The layout is the driver's (:data:`thymio_road.real.driver.COMM_RX_LABEL`), so a controller cannot
tell the simulator from a real robot.

Timing: a robot sends every 0.1 s at its own phase, the phase of its "prox" event in the world.
The world publishes a robot's ``ground_truth`` at that event, so the robot sends on the first
tick of this node's 10 ms timer after its ground truth arrived. In the embedded runtime that is
the same tick, and the sender's pose is exact. A receiver's pose is the one from its own last
event, at most 0.1 s old (≤ 1.5 cm at full speed). Each transmission is on air once: every robot
that receives it gets one ``comm/rx`` message, published at the sender's tick. When several
senders reach one receiver in the same tick, the receiver gets one message per sender, in
scenario order. With ``collisions: true`` such simultaneous pulses destroy each other instead,
as on the real robot. Enki does not model that collision, and it is off by default.

A robot's ``battery_state`` (sensor_msgs/BatteryState), when someone publishes it (the traffic
lights do), scales its emitted IR intensity: the channel's per-emitter gain is the battery's
``percentage`` (0..1; a NaN or missing value counts as a full battery). See docs/traffic.md for
the law and what it does to the range.

Robots named in the ``real_robots`` parameter (set by the launch files for real Thymios) are left
out: their IR is real.

``/world/ir_links`` (visualization_msgs/MarkerArray, one LINE_LIST in namespace ``ir_links``)
shows the LED→sensor paths that carried a message in the last 0.1 s. It is built only while
someone subscribes.
"""
from __future__ import annotations

from functools import partial
import math
from typing import Any

import numpy as np

from swarm_comm import prox_comm
from thymio_road.nodes import msgs
from thymio_road.nodes.params import declare, scenario_of_node
from thymio_road.real.driver import COMM_RX_LABEL, COMM_RX_SIZE
from thymio_road.scenario import robot_specs
from thymio_road.sim.sensors import sheet_walls

#: Seed-sequence key of the medium's noise stream (the world uses the scenario seed directly).
NOISE_STREAM = 0x1C0
#: Height of the proximity sensors (m), for the link markers.
SENSOR_HEIGHT = 0.034


class IrMediumNode:
    """Collects the robots' poses and comm settings, and runs one channel step per 10 ms tick."""

    def __init__(self, node: Any) -> None:
        self.node = node
        self.scenario = scenario_of_node(node)
        model_name = declare(node, 'model', prox_comm.ENKI_DOC.name)
        self.collisions = declare(node, 'collisions', False)
        tick = declare(node, 'tick_period', 0.01)
        real = declare(node, 'real_robots', '')
        if not 0 < tick <= prox_comm.PERIOD:
            raise ValueError(f'ir_medium: parameter tick_period must be in (0, {prox_comm.PERIOD}] s, got {tick}')
        try:
            params = prox_comm.model(model_name)
        except ValueError as exc:
            raise ValueError(f'ir_medium: parameter model: {exc}') from None
        road_map = self.scenario.road_map
        walls = sheet_walls(road_map.width, road_map.height) if road_map.walls else None
        self.channel = prox_comm.ProxCommChannel(params, walls)
        self.rng = np.random.default_rng(np.random.SeedSequence([self.scenario.seed, NOISE_STREAM]))
        names = [spec.name for spec in robot_specs(self.scenario)]
        # Real Thymios (launch argument `real`) talk through their own IR: not simulated here.
        real_names = {r.strip() for r in str(real).split(',') if r.strip()}
        unknown = sorted(real_names - set(names))
        if unknown:
            raise ValueError(f"ir_medium: parameter real_robots: no robot '{unknown[0]}' in "
                             f"{self.scenario.source} (robots: {', '.join(names)})")
        self.names = [name for name in names if name not in real_names]
        n = len(self.names)
        self.poses = np.zeros((n, 3))
        self.known = np.zeros(n, dtype=bool)
        #: Robots whose "prox" event came since the last tick: they send on the next.
        self._due: set[int] = set()
        #: The known robots, each robot's index among them and their gains (None: all 1), kept
        #: until a robot becomes known or a gain changes (None: to be worked out again).
        self._present: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None
        self.enabled = np.zeros(n, dtype=bool)
        self.tx = np.zeros(n, dtype=np.int64)
        self.gains = np.ones(n)
        self._warned: set[int] = set()
        self.sent = 0
        self.received = 0
        self.collided = 0

        self.rx_pubs = [node.create_publisher(msgs.Int16MultiArray, f'/{name}/comm/rx', msgs.qos(100))
                        for name in self.names]
        for i, name in enumerate(self.names):
            node.create_subscription(msgs.Int16, f'/{name}/comm/tx', partial(self._on_tx, i), msgs.DEFAULT)
            node.create_subscription(msgs.Bool, f'/{name}/comm/enable', partial(self._on_enable, i), msgs.DEFAULT)
            node.create_subscription(msgs.Odometry, f'/{name}/ground_truth', partial(self._on_truth, i),
                                     msgs.SENSOR)
            node.create_subscription(msgs.BatteryState, f'/{name}/battery_state', partial(self._on_battery, i),
                                     msgs.DEFAULT)
        self.links_pub = node.create_publisher(msgs.MarkerArray, '/world/ir_links', msgs.DEFAULT)
        self._layout = msgs.Int16MultiArray().layout
        self._layout.dim = [msgs.MultiArrayDimension(label=COMM_RX_LABEL, size=COMM_RX_SIZE, stride=COMM_RX_SIZE)]
        self.ticks = 0
        self.ticks_per_period = max(1, int(round(prox_comm.PERIOD / tick)))
        self._period_links: list[np.ndarray] = []
        node.create_timer(tick, self._on_tick)

    # --- callbacks -----------------------------------------------------------------------------
    def _on_tx(self, i: int, msg: Any) -> None:
        value = int(msg.data)
        if not 0 <= value <= prox_comm.PAYLOAD_MAX:
            clipped = min(max(value, 0), prox_comm.PAYLOAD_MAX)
            if i not in self._warned:
                self._warned.add(i)
                self.node.get_logger().warning(
                    f'/{self.names[i]}/comm/tx: {value} is outside the 11-bit payload 0..{prox_comm.PAYLOAD_MAX}; '
                    f'sending {clipped} (warned once per robot)')
            value = clipped
        self.tx[i] = value

    def _on_battery(self, i: int, msg: Any) -> None:
        p = float(msg.percentage)
        gain = min(max(p, 0.0), 1.0) if math.isfinite(p) else 1.0
        if gain != self.gains[i]:
            self.gains[i] = gain
            self._present = None

    def _on_enable(self, i: int, msg: Any) -> None:
        self.enabled[i] = bool(msg.data)

    def _on_truth(self, i: int, msg: Any) -> None:
        p = msg.pose.pose
        q = p.orientation
        self.on_pose(i, p.position.x, p.position.y, q.x, q.y, q.z, q.w)

    def on_pose(self, i: int, x: float, y: float, qx: float, qy: float, qz: float, qw: float) -> None:
        """Robot i's ground truth at its "prox" event: the message's values, or the embedded fast path's."""
        yaw = math.atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz))
        self.poses[i] = (x, y, yaw)
        if not self.known[i]:
            self.known[i] = True
            self._present = None
        self._due.add(i)  # the robot's "prox" event: it sends now

    def _on_tick(self) -> None:
        self.ticks += 1
        if self._due:
            due = np.fromiter(self._due, dtype=np.int64, count=len(self._due))
            due.sort()
            self._due.clear()
            senders = due[self.enabled[due] & (self.tx[due] != 0)]
            if len(senders):
                self._transmit(senders)
        if self.ticks % self.ticks_per_period == 0:
            self._publish_links()

    # --- the medium ----------------------------------------------------------------------------
    def _transmit(self, senders: np.ndarray) -> None:
        """One channel step for the robots sending on this tick; one comm/rx per reception."""
        if self._present is None:
            present = np.flatnonzero(self.known)
            local = np.full(len(self.names), -1)
            local[present] = np.arange(len(present))
            gains = self.gains[present]
            self._present = present, local, None if (gains == 1.0).all() else gains
        present, local, gains = self._present
        everyone = len(present) == len(self.names)
        # Valid by construction (payloads clipped in _on_tx, gains in _on_battery, poses from the
        # world): the channel's checks are skipped, a fifth of the medium's time. The channel
        # only reads the poses and the mask.
        rec = self.channel.step_valid(self.poses if everyone else self.poses[present], local[senders],
                                      self.tx[senders], self.enabled if everyone else self.enabled[present],
                                      self.rng, gains)
        self.sent += len(senders)
        keep = np.ones(len(rec), dtype=bool)
        if self.collisions and len(rec):
            _, first, counts = np.unique(rec.receiver, return_index=True, return_counts=True)
            clash = np.isin(rec.receiver, rec.receiver[first[counts > 1]])
            keep &= ~clash
            self.collided += int(clash.sum())
        if len(rec):
            # One comm/rx row per reception: [rx, payloads (7), intensities (7)].
            table = np.column_stack([rec.rx, rec.payloads, rec.intensities]).astype(np.int16)
            rows = np.flatnonzero(keep)
            for k, robot in zip(rows.tolist(), present[rec.receiver[rows]].tolist()):
                self.rx_pubs[robot].publish(msgs.Int16MultiArray(layout=self._layout,
                                                                 data=msgs.int16_array(table[k])))
        self.received += int(keep.sum())
        if len(rec.links) and self.links_pub.get_subscription_count():
            links = rec.links
            if not keep.all():
                kept = set(zip(rec.transmitter[keep].tolist(), rec.receiver[keep].tolist()))
                links = links[[(int(t), int(r)) in kept for t, _, r, _ in links]].reshape(-1, 4)
            self._period_links.append(self.channel.link_segments(self.poses[present], links))

    def _publish_links(self) -> None:
        """The LED→sensor paths that carried a message during the last period, as one LINE_LIST."""
        segments = self._period_links
        self._period_links = []
        if not self.links_pub.get_subscription_count():
            return
        marker = msgs.Marker(header=msgs.Header(stamp=self.node.get_clock().now().to_msg(), frame_id='map'),
                             ns='ir_links', id=0, type=5)  # LINE_LIST
        lines = np.concatenate(segments).reshape(-1, 2) if segments else np.zeros((0, 2))
        if len(lines):
            marker.action = 0  # ADD (replaces the previous period's lines)
            marker.points = [msgs.Point(x=float(x), y=float(y), z=SENSOR_HEIGHT) for x, y in lines]
            marker.scale = msgs.Vector3(x=0.002, y=0.0, z=0.0)
            marker.color = msgs.ColorRGBA(r=1.0, g=0.2, b=0.1, a=0.9)
        else:
            marker.action = 2  # DELETE: no link this period
        self.links_pub.publish(msgs.MarkerArray(markers=[marker]))


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_ir_medium``)."""
    from thymio_road.nodes.ros_main import spin
    spin('ir_medium', IrMediumNode, args)
