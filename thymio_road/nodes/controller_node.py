"""Controller node: one per robot, the report's state machine on the robot's own topics.

Runs on each "prox" event: it keeps the latest ``prox/horizontal`` and steps on
``prox/ground/delta`` (both come from the same event), then publishes ``cmd_vel`` and the top
LED. State changes and events go to ``controller/state`` (latched) and ``controller/events``
(JSON in std_msgs/String) so that a bag alone explains every decision. The forward and centre
buttons are Trigger services ``button/forward`` and ``button/center``.
"""
from __future__ import annotations

import json
from typing import Any

from thymio_road import msgs
from thymio_road import robot_model as rm
from thymio_road.controller import ControllerParams, RoadController, State, led_colour

#: Parameters a scenario may set for a controller (with ControllerParams' defaults).
PARAMETERS = ControllerParams()


class ControllerNode:
    def __init__(self, node: Any) -> None:
        self.node = node
        values = {name: node.declare_parameter(name, getattr(PARAMETERS, name)).value
                  for name in ControllerParams.__dataclass_fields__}
        initial = node.declare_parameter('initial_state', 'ROAD').value
        try:
            params = ControllerParams(**values)
            state = State[initial]
        except (ValueError, KeyError) as exc:
            raise ValueError(f'{node.get_namespace()}/{node.get_name()}: bad parameter: {exc}') from None
        self.core = RoadController(params, state)
        self.prox = [0] * 7
        self.cmd_pub = node.create_publisher(msgs.Twist, 'cmd_vel', msgs.DEFAULT)
        self.led_pub = node.create_publisher(msgs.ColorRGBA, 'led/body/top', msgs.DEFAULT)
        self.state_pub = node.create_publisher(msgs.String, 'controller/state', msgs.LATCHED)
        self.event_pub = node.create_publisher(msgs.String, 'controller/events', msgs.qos(100))
        node.create_subscription(msgs.Int16MultiArray, 'prox/horizontal', self._on_horizontal, msgs.SENSOR)
        node.create_subscription(msgs.Int16MultiArray, 'prox/ground/delta', self._on_ground, msgs.SENSOR)
        node.create_service(msgs.Trigger, 'button/forward', self._on_forward)
        node.create_service(msgs.Trigger, 'button/center', self._on_center)
        self._led: tuple[int, int, int] | None = None
        self._publish_state()

    def _on_horizontal(self, msg: Any) -> None:
        self.prox = msg.data

    def _on_ground(self, msg: Any) -> None:
        left, right = self.core.step(msg.data, self.prox)
        v, w = rm.units_to_twist(left, right)
        cmd = msgs.Twist()
        cmd.linear.x, cmd.angular.z = v, w
        self.cmd_pub.publish(cmd)
        self._flush()

    def _on_forward(self, request: Any, response: Any) -> Any:
        self.core.start()
        self._flush()
        response.success, response.message = True, self.core.state.name
        return response

    def _on_center(self, request: Any, response: Any) -> Any:
        self.core.stop()
        self.cmd_pub.publish(msgs.Twist())
        self._flush()
        response.success, response.message = True, self.core.state.name
        return response

    def _flush(self) -> None:
        """Publish what the last step changed: events, state, LED colour."""
        stamp = self.node.get_clock().now().nanoseconds / 1e9
        for event in self.core.drain_events():
            self.event_pub.publish(msgs.String(data=json.dumps(
                {'t': round(stamp, 3), 'kind': event.kind, **event.data}, sort_keys=True)))
            if event.kind == 'state':
                self._publish_state()
        led = led_colour(self.core)
        if led != self._led:
            self._led = led
            r, g, b = (c / 32.0 for c in led)
            self.led_pub.publish(msgs.ColorRGBA(r=r, g=g, b=b, a=1.0))

    def _publish_state(self) -> None:
        self.state_pub.publish(msgs.String(data=self.core.state.name))


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_controller``)."""
    from thymio_road.nodes.ros_main import spin
    spin('controller', ControllerNode, args)
