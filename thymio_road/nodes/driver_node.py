# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Driver node: a real Thymio behind the same per-robot topics as the simulated world.

Publishes (in the robot's namespace) ``prox/horizontal``, ``prox/ground/delta`` (one "prox"
event, 10 Hz), ``proximity/<name>`` and ``ground/left|right`` (Range), ``comm/rx``, ``odom`` and the TF
``<robot>/odom → <robot>/base_link``; latches the sensor frames and ``map → <robot>/odom``
(the pose where the robot was put down) on ``/tf_static``; draws the robot on
``/world/markers`` in its top LED colour. Subscribes ``cmd_vel``, ``comm/tx``,
``comm/enable`` and ``led/body/top``. All robot logic (calibration, watchdog, reconnection)
is in :class:`thymio_road.real.driver.DriverCore`; the link is :class:`thymio_road.real.tdm_link.TdmLink`.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable

from thymio_road.nodes import msgs
from thymio_road.nodes.params import declare
from thymio_road.real.driver import (Calibration, COMM_RX_LABEL, COMM_RX_SIZE, CommReading, DriverCore, DriverParams,
                                     load_program, measured_twist, Odometry, SensorReading, ThymioLink)
from thymio_road.sim import robot_model as rm

#: Parameters and defaults (ROS parameter types follow the defaults).
PARAMETERS: dict[str, Any] = {
    'tdm_host': '',            # '' discovers the Thymio Device Manager with zeroconf
    'tdm_port': 0,             # 0: tdmclient's default (8596)
    'robot_name': '',          # the robot's name in Thymio Suite ('' : first free robot)
    'robot_id': '',            # or its node id
    'connect_timeout': 5.0,
    'program': '',             # '' : the shipped thymio_road/real/aseba/driver.aesl
    'speed_factor': 1.0,
    'gain_left': 1.0,
    'gain_right': 1.0,
    'cmd_timeout': 0.5,
    'link_timeout': 2.0,
    'reconnect_max': 10.0,
    'comm_enabled': True,
    'speed_deadband': 10,
    'period': 0.05,            # how often the link is polled (s)
    'initial_x': 0.0,          # where the robot was put down on the map (map → odom)
    'initial_y': 0.0,
    'initial_theta': 0.0,
    'ground_threshold': msgs.GROUND_THRESHOLD,  # ground/<side>: the ground is seen from this raw value
}
MARKER_PERIOD = 0.5


class DriverNode:
    def __init__(self, node: Any, link: ThymioLink | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.node = node
        p = {name: declare(node, name, default) for name, default in PARAMETERS.items()}
        where = f'{node.get_namespace().rstrip("/")}/{node.get_name()}'
        try:
            calibration = Calibration(float(p['speed_factor']), float(p['gain_left']), float(p['gain_right']))
            params = DriverParams(cmd_timeout=float(p['cmd_timeout']), link_timeout=float(p['link_timeout']),
                                  reconnect_max=float(p['reconnect_max']), comm_enabled=bool(p['comm_enabled']),
                                  speed_deadband=int(p['speed_deadband']))
            if not 0 < float(p['period']) <= 0.1:
                raise ValueError(f"period must be in (0, 0.1] s to keep up with 10 Hz events, got {p['period']}")
            program = load_program(p['program'] or None)
            if link is None:
                from thymio_road.real.tdm_link import TdmLink
                link = TdmLink(p['tdm_host'], int(p['tdm_port']), p['robot_name'], p['robot_id'],
                               float(p['connect_timeout']))
        except (ValueError, FileNotFoundError) as exc:
            raise ValueError(f'{where}: bad parameter: {exc}') from None
        self.monotonic = monotonic
        self.ground_threshold = int(p['ground_threshold'])
        self.calibration, self.params = calibration, params
        self.core = DriverCore(link, program, calibration, params, log=node.get_logger().info)
        self.prefix = node.get_namespace().strip('/')
        self.odometry = Odometry()
        self.led = (0.0, 0.0, 0.0)
        self._last_marker = -math.inf

        create = node.create_publisher
        self.horizontal_pub = create(msgs.Int16MultiArray, 'prox/horizontal', msgs.SENSOR)
        self.ground_pub = create(msgs.Int16MultiArray, 'prox/ground/delta', msgs.SENSOR)
        self.range_pubs = [create(msgs.Range, f'proximity/{name}', msgs.SENSOR) for name in rm.PROX_NAMES]
        self.ground_range_pubs = [create(msgs.Range, f'ground/{side}', msgs.SENSOR) for side in msgs.GROUND_NAMES]
        self.comm_pub = create(msgs.Int16MultiArray, 'comm/rx', msgs.qos(100))
        self.odom_pub = create(msgs.Odometry, 'odom', msgs.SENSOR)
        self.tf_pub = self.tf_static_pub = None
        if msgs.TFMessage is not None:
            self.tf_pub = create(msgs.TFMessage, '/tf', msgs.qos(100))
            self.tf_static_pub = create(msgs.TFMessage, '/tf_static', msgs.LATCHED)
        else:
            node.get_logger().warning(msgs.TF_MISSING)
        self.marker_pub = create(msgs.MarkerArray, '/world/markers', msgs.DEFAULT)
        node.create_subscription(msgs.Twist, 'cmd_vel', self._on_cmd_vel, msgs.DEFAULT)
        node.create_subscription(msgs.Int16, 'comm/tx', self._on_comm_tx, msgs.DEFAULT)
        node.create_subscription(msgs.Bool, 'comm/enable', self._on_comm_enable, msgs.DEFAULT)
        node.create_subscription(msgs.ColorRGBA, 'led/body/top', self._on_led, msgs.DEFAULT)
        self._layout = msgs.Int16MultiArray().layout
        self._comm_layout = msgs.Int16MultiArray().layout
        self._comm_layout.dim = [msgs.MultiArrayDimension(label=COMM_RX_LABEL, size=COMM_RX_SIZE,
                                                          stride=COMM_RX_SIZE)]
        if self.tf_static_pub is not None:
            self.tf_static_pub.publish(self._static_transforms(float(p['initial_x']), float(p['initial_y']),
                                                               float(p['initial_theta'])))
        node.create_timer(float(p['period']), self._on_timer)

    def frame(self, name: str) -> str:
        return f'{self.prefix}/{name}' if self.prefix else name

    # --- ROS inputs -----------------------------------------------------------------------------
    def _on_cmd_vel(self, msg: Any) -> None:
        try:
            self.core.on_cmd_vel(msg.linear.x, msg.angular.z, self.monotonic())
        except ValueError as exc:
            self.node.get_logger().warning(f'ignoring cmd_vel: {exc}')

    def _on_comm_tx(self, msg: Any) -> None:
        try:
            self.core.on_comm_tx(int(msg.data))
        except ValueError as exc:
            self.node.get_logger().warning(f'ignoring comm/tx: {exc}')

    def _on_comm_enable(self, msg: Any) -> None:
        self.core.on_comm_enable(bool(msg.data))

    def _on_led(self, msg: Any) -> None:
        try:
            self.core.on_led_top(msg.r, msg.g, msg.b)
            self.led = (float(msg.r), float(msg.g), float(msg.b))
        except ValueError as exc:
            self.node.get_logger().warning(f'ignoring led/body/top: {exc}')

    # --- the robot's outputs ----------------------------------------------------------------------
    def _on_timer(self) -> None:
        now = self.monotonic()
        result = self.core.step(now)
        stamp = self.node.get_clock().now().to_msg()
        for reading in result.sensors:
            self._publish_sensors(reading, stamp, now)
        for comm in result.comm:
            self._publish_comm(comm)
        if not result.connected:
            self.odometry.reset_clock()
        if now - self._last_marker >= MARKER_PERIOD and self.marker_pub.get_subscription_count():
            self._last_marker = now
            self.marker_pub.publish(self._marker(stamp))

    def _publish_sensors(self, reading: SensorReading, stamp: Any, now: float) -> None:
        self.horizontal_pub.publish(msgs.Int16MultiArray(layout=self._layout,
                                                         data=msgs.int16_array(reading.horizontal)))
        self.ground_pub.publish(msgs.Int16MultiArray(layout=self._layout, data=msgs.int16_array(reading.ground)))
        for pub, name, value in zip(self.range_pubs, rm.PROX_NAMES, reading.horizontal):
            if pub.get_subscription_count():
                pub.publish(msgs.Range(
                    header=msgs.Header(stamp=stamp, frame_id=self.frame(f'proximity_{name}_link')),
                    radiation_type=msgs.Range.INFRARED, field_of_view=float(2 * rm.PROX_RAY_ANGLES[2]),
                    min_range=0.0, max_range=rm.PROX_RANGE, range=float(rm.prox_distance(value))))
        for pub, side, value in zip(self.ground_range_pubs, msgs.GROUND_NAMES, reading.ground):
            if pub.get_subscription_count():
                pub.publish(msgs.ground_range(stamp, self.frame(f'ground_{side}_link'), value, self.ground_threshold))
        _, _, v, w = measured_twist(*reading.speeds, self.calibration, self.params.speed_deadband)
        self.odometry.update(now, v, w)
        odom = self.odometry
        pose = (odom.x, odom.y, odom.theta)
        if self.odom_pub.get_subscription_count():
            msg = msgs.Odometry(header=msgs.Header(stamp=stamp, frame_id=self.frame('odom')),
                                child_frame_id=self.frame('base_link'))
            msg.pose.pose.position = msgs.Point(x=odom.x, y=odom.y, z=0.0)
            msg.pose.pose.orientation = msgs.quaternion_from_yaw(odom.theta)
            msg.twist.twist.linear.x, msg.twist.twist.angular.z = float(v), float(w)
            self.odom_pub.publish(msg)
        if self.tf_pub is not None and self.tf_pub.get_subscription_count():
            self.tf_pub.publish(msgs.TFMessage(transforms=[
                msgs.transform_stamped(stamp, self.frame('odom'), self.frame('base_link'), pose)]))

    def _publish_comm(self, comm: CommReading) -> None:
        self.comm_pub.publish(msgs.Int16MultiArray(layout=self._comm_layout,
                                                   data=msgs.int16_array(comm.as_array())))

    def _static_transforms(self, x: float, y: float, theta: float) -> Any:
        stamp = msgs.stamp(0.0)
        transforms = [msgs.transform_stamped(stamp, 'map', self.frame('odom'), (x, y, theta))]
        for name, (sx, sy, sa) in zip(rm.PROX_NAMES, rm.PROX_SENSORS):
            transforms.append(msgs.transform_stamped(stamp, self.frame('base_link'),
                                                     self.frame(f'proximity_{name}_link'), (sx, sy, sa)))
        for side, (gx, gy) in zip(msgs.GROUND_NAMES, rm.GROUND_SENSORS_TUPLE):
            transforms.append(msgs.ground_link(stamp, self.frame('base_link'), self.frame(f'ground_{side}_link'),
                                               gx, gy))
        return msgs.TFMessage(transforms=transforms)

    def _marker(self, stamp: Any) -> Any:
        r, g, b = self.led
        body = msgs.Marker(header=msgs.Header(stamp=stamp, frame_id=self.frame('base_link')),
                           ns=f'real_robots/{self.prefix}', id=0, type=3, action=0)  # CYLINDER, ADD
        body.pose.position = msgs.Point(x=0.0, y=0.0, z=0.025)
        body.scale = msgs.Vector3(x=0.11, y=0.11, z=0.05)
        body.color = msgs.ColorRGBA(r=r, g=g, b=b, a=1.0) if (r or g or b) \
            else msgs.ColorRGBA(r=0.9, g=0.9, b=0.9, a=1.0)
        return msgs.MarkerArray(markers=[body])

    def close(self) -> None:
        """Stop the motors and release the robot (ros_main.spin calls this on exit)."""
        self.core.close()


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_driver``)."""
    from thymio_road.nodes.ros_main import spin
    spin('driver', DriverNode, args)
