# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""Controller node: one per robot, the report's state machine on the robot's own topics.

Runs on each "prox" event: it keeps the latest ``prox/horizontal`` and steps on
``prox/ground/delta`` (both come from the same event), then publishes ``cmd_vel`` and the top
LED. State changes and events go to ``controller/state`` (latched) and ``controller/events``
(JSON in std_msgs/String) so that a bag alone explains every decision. The forward and centre
buttons are Trigger services ``button/forward`` and ``button/center``.

Map tracking and routing (docs/navigation.md): a :class:`~thymio_road.control.navigation.Navigator`
decides at the marks once the map is known (parameter ``map_file``, else the latched
``/world/map_description``); parameters ``mission`` ('3,1,5', '' = random driving),
``start_node`` ('' = unknown) and ``start_road`` (the road it was put down on); topic ``mission``
(std_msgs/String, '3,1,5') sets a new mission.
Its events ('node', 'arrival') go to ``controller/events`` like the controller's.

Traffic lights (docs/traffic.md): with ``obey_lights`` (default) the node enables the IR
(``comm/enable``, repeated every second) and gives each ``comm/rx`` value to the controller
(:meth:`~thymio_road.control.controller.RoadController.on_comm`), with the integer ids of the node the
navigator says the robot is in and of the node it came from (:func:`thymio_road.map.lights.node_ids`).
"""
from __future__ import annotations

from functools import lru_cache
import json
from pathlib import Path
import sys
from typing import Any

import yaml

from thymio_road.control.controller import ControllerParams, led_colour, RoadController, State
from thymio_road.control.navigation import Navigator, parse_mission
from thymio_road.map.lights import node_ids
from thymio_road.map.loader import load_map, parse_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.map.road_map import MapError
from thymio_road.map.validation import parse_yaml
from thymio_road.nodes import msgs
from thymio_road.nodes.params import convert, declare, declare_fields
from thymio_road.sim import robot_model as rm


class ControllerNode:
    def __init__(self, node: Any) -> None:
        self.node = node
        values = declare_fields(node, ControllerParams)
        initial = declare(node, 'initial_state', 'ROAD')
        try:
            params = ControllerParams(**values)
            state = State[initial]
        except (ValueError, KeyError) as exc:
            raise ValueError(f'{node.get_namespace()}/{node.get_name()}: bad parameter: {exc}') from None
        self.core = RoadController(params, state)
        self.prox = [0] * 7
        #: The embedded runtime's fast path (runtime/run.py) sets this when the world is cmd_vel's
        #: only reader: the step's wheel targets go to it as two integers, no Twist is built.
        self.command_sink: Any = None
        self.cmd_pub = node.create_publisher(msgs.Twist, 'cmd_vel', msgs.DEFAULT)
        self.led_pub = node.create_publisher(msgs.ColorRGBA, 'led/body/top', msgs.DEFAULT)
        self.state_pub = node.create_publisher(msgs.String, 'controller/state', msgs.LATCHED)
        self.event_pub = node.create_publisher(msgs.String, 'controller/events', msgs.qos(100))
        node.create_subscription(msgs.Int16MultiArray, 'prox/horizontal', self._on_horizontal, msgs.SENSOR)
        node.create_subscription(msgs.Int16MultiArray, 'prox/ground/delta', self._on_ground, msgs.SENSOR)
        node.create_service(msgs.Trigger, 'button/forward', self._on_forward)
        node.create_service(msgs.Trigger, 'button/center', self._on_center)
        self.enable_pub = None
        self.tx_pub = None
        self._tx = 0
        self._steps = 0
        self._ids: dict[str, int] = {}
        self._previous: str | None = None
        if params.obey_lights or self.core.policy.talks:
            self.enable_pub = node.create_publisher(msgs.Bool, 'comm/enable', msgs.DEFAULT)
            node.create_subscription(msgs.Int16MultiArray, 'comm/rx', self._on_rx, msgs.qos(100))
        if self.core.policy.talks:
            # The right of way (control/right_of_way.py): the robot announces itself by IR.
            self.tx_pub = node.create_publisher(msgs.Int16, 'comm/tx', msgs.DEFAULT)
        self._led: tuple[int, int, int] | None = None
        self._publish_state()
        self.navigator: Navigator | None = None
        #: The navigator's belief (its `inside` and `edges`, replaced, never changed in place,
        #: whenever it changes) when core.current_node was last set from it: a step whose events
        #: are none and whose belief is the same object skips the node's query (a set built).
        self._belief: tuple[Any, Any] = (_UNSET, _UNSET)
        # The one parameter that takes effect at run time (`ros2 param set`), like the mission topic.
        self._mission = declare(node, 'mission', '', read_only=False)
        self._start_node = declare(node, 'start_node', '')
        self._start_road = declare(node, 'start_road', '')
        map_file = declare(node, 'map_file', '')
        try:
            parse_mission(self._mission)
        except ValueError as exc:
            raise ValueError(f'{node.get_namespace()}/{node.get_name()}: bad parameter: {exc}') from None
        node.create_subscription(msgs.String, 'mission', self._on_mission, msgs.qos(10))
        add_callback = getattr(node, 'add_on_set_parameters_callback', None)  # rclpy only
        if add_callback is not None:
            add_callback(self._on_set_parameters)
        if map_file:
            self._attach_navigator(_graph_of_file(map_file))
        else:
            node.create_subscription(msgs.String, '/world/map_description', self._on_map, msgs.LATCHED)

    def _attach_navigator(self, graph: RoadGraph) -> None:
        if self.navigator is not None:
            return
        try:
            self.navigator = Navigator(graph, parse_mission(self._mission), self._start_node,
                                       start_road=self._start_road)
        except ValueError as exc:  # a mission or start node this map does not have
            self.node.get_logger().error(f'navigation: {exc}; driving at random from an unknown node')
            self.navigator = Navigator(graph)
        self.navigator.attach(self.core)
        self._ids = node_ids(graph.road_map)

    def _on_map(self, msg: Any) -> None:
        try:
            graph = _graph_of_text(msg.data)
        except (ValueError, yaml.YAMLError) as exc:  # MapError is a ValueError
            # Without a road graph the robot still drives, with the report's random decisions.
            self.node.get_logger().warning(f'navigation: no road graph for this map ({exc}); '
                                           'driving at random')
            return
        self._attach_navigator(graph)

    def _on_mission(self, msg: Any) -> None:
        self._mission = msg.data
        if self.navigator is None:
            return  # applied when the map arrives
        try:
            self.navigator.set_mission(msg.data)
        except ValueError as exc:
            self.node.get_logger().error(f'mission {msg.data!r} ignored: {exc}')

    def _on_set_parameters(self, parameters: list[Any]) -> Any:
        """`ros2 param set <ns>/controller mission 3,1,5`: refused (with the reason) when the mission
        is malformed or names a node this map does not have, else applied at once.
        """
        from rcl_interfaces.msg import SetParametersResult
        for parameter in parameters:
            if parameter.name != 'mission':
                continue
            where = f'{self.node.get_namespace()}/{self.node.get_name()}: parameter mission'
            try:
                mission = convert(parameter.value, str, where)
                parse_mission(mission)
                if self.navigator is not None:
                    self.navigator.set_mission(mission)
            except ValueError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            self._mission = mission
        return SetParametersResult(successful=True)

    def _on_horizontal(self, msg: Any) -> None:
        self.prox = msg.data

    def _on_rx(self, msg: Any) -> None:
        """A received IR value (rx, payloads[7], intensities[7]): the controller acts on light codes."""
        if len(msg.data) == 0:
            return
        stopped = self.core.stopped_by_light
        self.core.on_comm(int(msg.data[0]), msg.data[8:15])
        if self.core.stopped_by_light and not stopped:
            self.cmd_pub.publish(msgs.Twist())  # allStop sets the motors to 0 at once
        self._flush()

    def _on_ground(self, msg: Any) -> None:
        self.on_sensors(msg.data, self.prox)

    def on_sensors(self, ground: Any, prox: Any) -> None:
        """One "prox" event: the messages' path above, or the embedded runtime's direct call."""
        self.prox = prox
        if self.enable_pub is not None and self._steps % 10 == 0:
            self.enable_pub.publish(msgs.Bool(data=True))
        self._steps += 1
        left, right = self.core.step(ground, prox)
        if self.command_sink is not None:
            self.command_sink(left, right)
        else:
            v, w = rm.units_to_twist(left, right)
            cmd = msgs.Twist()
            cmd.linear.x, cmd.angular.z = v, w
            self.cmd_pub.publish(cmd)
        if self.tx_pub is not None:
            tx = self.core.tx_value()
            if tx != self._tx:
                self._tx = tx
                self.tx_pub.publish(msgs.Int16(data=tx))
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
        nav = self.navigator
        moved = nav is not None and (nav.inside is not self._belief[0] or nav.edges is not self._belief[1])
        if not self.core.events and not moved and self._led is not None:
            return  # most steps: nothing to tell, and the navigator still believes what it did
        events = self.core.drain_events()
        if nav is not None and (events or moved):
            # The node before the events, needed only after an intersection event.
            before = nav.node if events else None
            events += nav.on_events(events)
            if any(e.kind == 'intersection' for e in events):
                self._previous = before  # the node it came from (Appendix A: oldNode)
            node = nav.node  # a property that builds a set: asked once
            self.core.current_node = self._ids.get(node) if node else None
            self.core.previous_node = self._ids.get(self._previous) if self._previous else None
            self._belief = nav.inside, nav.edges
        if events:
            stamp = self.node.get_clock().now().nanoseconds / 1e9
        for event in events:
            self.event_pub.publish(msgs.String(data=json.dumps(
                {**event.data, 't': round(stamp, 3), 'kind': event.kind}, sort_keys=True)))
            if event.kind == 'state':
                self._publish_state()
        if not events and self._led is not None:
            return  # the colour follows state, speed and intersection, which change only with an event
        led = led_colour(self.core)
        if led != self._led:
            self._led = led
            r, g, b = (c / 32.0 for c in led)
            self.led_pub.publish(msgs.ColorRGBA(r=r, g=g, b=b, a=1.0))

    def _publish_state(self) -> None:
        self.state_pub.publish(msgs.String(data=self.core.state.name))


_UNSET = object()


@lru_cache(maxsize=4)
def _graph_of_text(text: str) -> RoadGraph:
    """The road graph of the map the world publishes (robots share it: parsed once per process)."""
    return RoadGraph.build(parse_map(parse_yaml(text, '/world/map_description', MapError), '/world/map_description'))


@lru_cache(maxsize=4)
def _graph_of_file(path: str) -> RoadGraph:
    resolved = Path(path).resolve()
    scenario = sys.modules.get('thymio_road.scenario')
    if scenario is not None:
        # The embedded runtime: the world of this process has loaded the same file through the
        # scenario's map cache, so the controllers share its RoadMap instead of a second one.
        return RoadGraph.build(scenario._cached_map(str(resolved), resolved.stat().st_mtime))
    # A controller process of its own (ROS 2) loads the file as that cache does, without
    # importing the scenario module: that pulled in the simulator, numba, llvmlite and scipy,
    # 200 MB of RSS instead of 80 (benchmarks/bench_ros_processes.py --launch).
    return RoadGraph.build(load_map(resolved))


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_controller``)."""
    from thymio_road.nodes.ros_main import spin
    spin('controller', ControllerNode, args)
