# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic-light node: one static Thymio at a location exit or a crossroad (docs/traffic.md).

Runs the pure :class:`~thymio_road.control.traffic_light.TrafficLight` on a 0.1 s timer in its namespace
(``/light_<intersection>``, as the scenario names it):

- ``comm/tx`` (std_msgs/Int16): one code per period, Appendix A's node+20 (stop) / node+40 (go)
  and node+60 (all stop, the clearance at a location); a light that addresses several lanes
  cycles through their codes;
- ``comm/enable`` (std_msgs/Bool): True, repeated every second (the medium may start later);
- ``led/body/top`` (std_msgs/ColorRGBA): phase 0 green, phase 1 blue, clearance red — the world
  shows it on the light's marker;
- ``battery_state`` (sensor_msgs/BatteryState), every second: ``percentage`` is the charge
  fraction, which is also the IR intensity the ir_medium gives this emitter;
- ``traffic_light/phase`` (std_msgs/String, latched): JSON ``{"t", "light", "phase", "open",
  "codes", "extended_s", "preemptions"}`` on every phase change, so the bag alone tells which lane
  was open when (``extended_s``: the all reds' extensions so far, summed; ``preemptions``: the
  times the light changed its order for a priority vehicle so far).

It subscribes to ``comm/rx`` (std_msgs/Int16MultiArray, the driver's layout: the value first):
an actuated light (a location's, with ``clearance_extension`` or ``priority_preemption``)
extends an all red while it hears a robot of the lane it closed still driving, and gives the
lane a priority vehicle waits in its green.

A crossroad's light with ``priority_preemption`` is a member of its crossroad's signal group,
which pre-empts as one light (docs/traffic.md):

- ``/traffic_lights/priority_demand`` (std_msgs/String, one topic for every light): JSON
  ``{"t", "intersection", "phase", "light"}``, a demand for the phase whose queue a priority
  vehicle waits in, as the member that heard it "priority behind" publishes it; every member
  subscribes and gives its core the demands of its own crossroad (its own included). Lights
  that are no member neither publish nor subscribe it.

Parameters: ``scenario_file`` (its map gives the light's place and lanes), ``light`` (the
name), and one per field of :class:`~thymio_road.control.traffic_light.Timing` (``green``,
``clearance``, ...) and of ``Battery`` (prefixed: ``battery_decay``, ...), as
:func:`~thymio_road.control.traffic_light.node_parameters` names them; the scenario's values are
their defaults.
"""
from __future__ import annotations

import json
from typing import Any

from thymio_road.control.traffic_light import (Demand, from_node_parameters, node_parameters, phase_names,
                                               TrafficLight)
from thymio_road.nodes import msgs
from thymio_road.nodes.params import declare, scenario_of_node

PERIOD = 0.1
#: The crossroads' signal groups share their demands on this topic (absolute: one for all lights).
DEMAND_TOPIC = '/traffic_lights/priority_demand'
#: Battery state and comm enable are republished every this many periods.
SLOW_EVERY = 10


class TrafficLightNode:
    def __init__(self, node: Any) -> None:
        self.node = node
        scenario = scenario_of_node(node)
        name = declare(node, 'light', '')
        entry = next((e for e in scenario.lights if e.name == name), None)
        if entry is None:
            known = ', '.join(e.name for e in scenario.lights)
            # No default: a light is one place of one map, so a bare `ros2 run` is told what to give.
            given = f"no light '{name}' in {scenario.source}" if name else 'not given'
            hint = (f'-p light:=NAME, one of {known}' if known else
                    f'-p light:=NAME with -p scenario_file:= a scenario with lights (e.g. final_traffic); '
                    f'{scenario.source} has none')
            raise ValueError(f'traffic_light: parameter light: {given}: {hint}')
        try:
            values = {key: declare(node, key, value)
                      for key, value in node_parameters(entry.timing, entry.battery).items()}
            timing, battery = from_node_parameters(values)
        except ValueError as exc:
            raise ValueError(f'{node.get_namespace()}/{node.get_name()}: bad parameter: {exc}') from None
        self.name = name
        self.core = TrafficLight(entry.place, timing)
        self.battery = battery
        self.names = phase_names(entry.place)
        self.tx_pub = node.create_publisher(msgs.Int16, 'comm/tx', msgs.DEFAULT)
        self.enable_pub = node.create_publisher(msgs.Bool, 'comm/enable', msgs.DEFAULT)
        self.led_pub = node.create_publisher(msgs.ColorRGBA, 'led/body/top', msgs.DEFAULT)
        self.battery_pub = node.create_publisher(msgs.BatteryState, 'battery_state', msgs.DEFAULT)
        self.phase_pub = node.create_publisher(msgs.String, 'traffic_light/phase', msgs.LATCHED)
        node.create_subscription(msgs.Int16MultiArray, 'comm/rx', self._on_rx, msgs.qos(100))
        self.demand_pub = None
        if self.core.group:
            # A member of its crossroad's signal group: a demand it hears reaches every member,
            # itself included, through this topic, and all count it from the same time.
            self.demand_pub = node.create_publisher(msgs.String, DEMAND_TOPIC, msgs.qos(100))
            node.create_subscription(msgs.String, DEMAND_TOPIC, self._on_demand, msgs.qos(100))
        self.period = 0
        self._phase: object = ()
        self._led: tuple[int, int, int] | None = None
        node.create_timer(PERIOD, self._on_timer)

    def _now(self) -> float:
        return self.node.get_clock().now().nanoseconds / 1e9

    def _on_rx(self, msg: Any) -> None:
        if len(msg.data):
            demand = self.core.hear(self._now(), int(msg.data[0]))
            if demand is not None and self.demand_pub is not None:
                # `t` as heard, unrounded (JSON keeps a float exactly): every member counts from it.
                self.demand_pub.publish(msgs.String(data=json.dumps({
                    't': demand.t, 'intersection': demand.intersection, 'phase': demand.phase, 'light': self.name},
                    sort_keys=True)))

    def _on_demand(self, msg: Any) -> None:
        data = json.loads(msg.data)
        if data['intersection'] == self.core.place.intersection:
            self.core.share(Demand(data['intersection'], int(data['phase']), float(data['t'])))

    def _on_timer(self) -> None:
        t = self._now()
        if self.period % SLOW_EVERY == 0:
            self.enable_pub.publish(msgs.Bool(data=True))
            self._publish_battery(t)
        self.tx_pub.publish(msgs.Int16(data=int(self.core.code(t, self.period))))
        self.period += 1
        phase = self.core.phase(t)
        if phase != self._phase:
            self._phase = phase
            self.phase_pub.publish(msgs.String(data=json.dumps({
                't': round(t, 3), 'light': self.name, 'phase': phase,
                'open': None if phase is None else self.names[phase], 'codes': self.core.codes(t),
                'extended_s': round(self.core.extended_s, 3), 'preemptions': self.core.preemptions},
                sort_keys=True)))
        led = self.core.led(t)
        if led != self._led:
            self._led = led
            r, g, b = (c / 32.0 for c in led)
            self.led_pub.publish(msgs.ColorRGBA(r=r, g=g, b=b, a=1.0))

    def _publish_battery(self, t: float) -> None:
        msg = msgs.BatteryState()
        msg.header = msgs.Header(stamp=msgs.stamp(t), frame_id=f'{self.name}/base_link')
        msg.voltage = float(self.battery.voltage(t))
        msg.percentage = float(self.battery.charge(t))
        msg.present = True
        msg.power_supply_status = 2 if self.battery.decay else 4  # DISCHARGING, or FULL
        msg.power_supply_technology = 2  # LION
        msg.capacity = float('nan')
        msg.design_capacity = float('nan')
        msg.charge = float('nan')
        msg.current = float('nan')
        msg.temperature = float('nan')
        self.battery_pub.publish(msg)


def main(args: list[str] | None = None) -> None:
    """ROS 2 entry point (``ros2 run thymio_road thymio_traffic_light``)."""
    from thymio_road.nodes.ros_main import spin
    spin('traffic_light', TrafficLightNode, args)
