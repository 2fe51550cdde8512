# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Obeying the traffic lights (Appendix A's allStop / allStart and incrementCounter;
docs/traffic.md): which lane a light's code addresses, the stop, the go, finding a light again
past the edge of its reach, and the timeout.
"""
from __future__ import annotations

import math
from typing import Sequence

from thymio_road.control.events import Action, Event, State
from thymio_road.control.reading import EVENT_PERIOD, SPEED_CM_PER_UNIT
from thymio_road.control.traffic_light import decode

#: Events (0.1 s) after the last light code heard during which the robot counts as near a light
#: (the lights send every 0.1 s).
LIGHT_NEAR = 20
#: How far a robot backs at most to hear its crossroad's light again (light_edge): it stopped at
#: most one event's drive (1.3 cm at the highest speed) past where it heard the red, and the
#: medium took its pose of the event before.
REFIND_CM = 3.0
#: Backing per event: with enki_doc's hard sector edges the light's reach can end in islands
#: about a millimetre wide, which a longer step skips (docs/traffic_log.md, session 21).
REFIND_STEP_CM = 0.05
#: The wheel speed that backs REFIND_STEP_CM per event, and the events that cover REFIND_CM.
REFIND_SPEED = max(1, round(REFIND_STEP_CM / (SPEED_CM_PER_UNIT * EVENT_PERIOD)))
REFIND_EVENTS = math.ceil(REFIND_CM / (REFIND_SPEED * SPEED_CM_PER_UNIT * EVENT_PERIOD))


class LightObedience:
    """A robot's side of the lights. At a crossroad, before it has started crossing, node+20 /
    node+40 addressed to the node it came from stop / start it; at a location, a robot that
    continued past the siding entry stops on node+20 and goes on node+40, and a robot leaving the
    siding does the opposite (its stop timer frozen while held); node+60 holds both. A robot is
    never stopped while it crosses (CONTINUE).
    """

    def __init__(self, params, state: State) -> None:
        self.params = params
        self.stopped = False
        self.old_state = state
        #: Appendix A's incrementCounter: 0 freezes the stop in a location while the light says so.
        self.increment_counter = 1
        self.stopped_lane: tuple[str, int | None] | None = None
        #: Events held without hearing the light (light_timeout).
        self.quiet = 0
        #: Stopped by a light's code, and not heard it since (light_edge).
        self.unheard_since_stop = False
        #: Events of backing left to hear the light again (light_edge).
        self.refinding = 0
        #: Events since the robot last heard any traffic light's code (see LIGHT_NEAR).
        self.since_light = LIGHT_NEAR + 1
        #: The last light code heard, as (command, node): what the light says now, whether the
        #: robot obeys it or has committed past it.
        self.last_heard: tuple[str, int] | None = None
        #: On a crossroad's approach from an unknown node: the loudest each light was heard.
        self.arms: dict[int, int] = {}

    def near_light(self) -> bool:
        return self.since_light <= LIGHT_NEAR

    def at_rest(self) -> bool:
        """:meth:`tick` would change nothing (on the road, out of a siding's lane): not held, the
        counts running, no crossroad's lights being compared, none heard for LIGHT_NEAR events.
        """
        return not self.stopped and bool(self.increment_counter) and not self.arms \
            and self.since_light == LIGHT_NEAR + 1

    def says_go(self, node: int | None) -> bool:
        """Near a light whose last code heard opens the road lane of node `node` (node+40; any
        node when the robot does not know where it is, as the lights' addressing does).
        """
        heard = self.last_heard
        return self.near_light() and heard is not None and heard[0] == 'go' and node in (None, heard[1])

    def obeys(self) -> bool:
        """A priority vehicle passes red lights (report §11); the others give way to it."""
        return self.params.obey_lights and self.params.kind != 'priority'

    def hear(self, ctl, code: int, intensities: Sequence[int] | None = None) -> None:
        """A received value that was no robot's: a light's code acts on the lane the robot is in.
        A robot that does not obey (the priority vehicle) still knows it is near a light: the
        light is a Thymio that never moves (rules/facing_light.py).
        """
        decoded = decode(code)
        if decoded is None:
            return
        self.since_light = 0
        self.last_heard = decoded
        if not self.obeys():
            return
        command, node = decoded
        lane = self.stopped_lane if self.stopped else self.context(ctl)
        if lane is None:
            return
        kind, address = lane
        if address is None and kind == 'crossroad':
            # The lane stays unaddressed (also once stopped), so that a louder light takes over.
            if self._nearest_arm(node, intensities) != node:
                return
        elif address is not None and node != address:
            return
        self.quiet = 0
        self.unheard_since_stop = False
        stop = command != 'go' if kind != 'siding' else command != 'stop'
        if kind == 'siding':
            stop = ctl.policy.siding_stop(ctl, command, stop)
        if stop and ctl.policy.priority_behind(ctl):
            stop = False  # give way to the priority vehicle behind: the light's stop does not hold
        if stop:
            self.stop(ctl, code, lane)
        else:
            self.go(ctl, code, lane)

    def _nearest_arm(self, node: int, intensities: Sequence[int] | None) -> int | None:
        """The address of the crossroad light heard loudest on this approach, when the node the
        robot came from is unknown (its map tracking has several candidates, or no map): a
        crossroad's light stands beside its own in-lane, and IR reaches about 23 cm, so the robot
        hears its own arm's light loudest; ignoring every light, it would drive into a red and
        meet the crossing lanes' green. None while a louder light of another arm has been heard.
        """
        loudness = max(intensities, default=1) if intensities is not None else 1
        self.arms[node] = max(self.arms.get(node, 0), int(loudness))
        return node if self.arms[node] >= max(self.arms.values()) else None

    def context(self, ctl) -> tuple[str, int | None] | None:
        """The lane a light may command now, with the node id that addresses it, or None."""
        if ctl.action is Action.CROSSROAD and ctl.state is State.ACTION and ctl.counter_continue == 0:
            return 'crossroad', ctl.previous_node
        if ctl.action is Action.LOCATION and ctl.state is State.ACTION and ctl.counter_continue == 1:
            if ctl.policy.merge_committed(ctl):
                return None
            return 'road', ctl.current_node
        if ctl.light_lane == 'siding' and (ctl.delivering or ctl.state in (State.EXIT, State.ROAD)):
            return 'siding', ctl.current_node
        return None

    def stop(self, ctl, code: int | None, lane: tuple[str, int | None]) -> None:
        if ctl.delivering:
            if self.increment_counter:
                self.increment_counter = 0
                ctl.events.append(Event('light', {'code': code, 'command': 'hold', 'lane': lane[0]}))
            return
        if self.stopped:
            return
        self.stopped = True
        self.stopped_lane = lane
        self.unheard_since_stop = code is not None
        self.old_state = ctl.state
        ctl.events.append(Event('light', {'code': code, 'command': 'stop', 'lane': lane[0],
                                          'from': ctl.state.name}))
        ctl._set_state(State.STOP)

    def go(self, ctl, code: int | None, lane: tuple[str, int | None] | None, command: str = '') -> None:
        command = command or ('go' if code is not None else 'timeout')
        if not self.increment_counter:
            self.increment_counter = 1
            ctl.events.append(Event('light', {'code': code, 'command': command, 'lane': lane[0] if lane else None}))
        if self.stopped:
            self.stopped = False
            self.stopped_lane = None
            self.refinding = 0
            ctl.events.append(Event('light', {'code': code, 'command': command, 'lane': lane[0] if lane else None,
                                              'to': self.old_state.name}))
            ctl._set_state(self.old_state)

    def hold_in_siding(self, ctl) -> None:
        """Back in a location's siding lane after making way, the robot waits for its light's go
        again (or `light_timeout` of silence): what let it go before, a go or the timeout, is no
        longer the light's word, and the light may have let the road lane go meanwhile.
        """
        if not self.obeys():
            return
        self.quiet = 0
        ctl.policy.on_siding_hold(ctl)
        self.stop(ctl, None, ('siding', ctl.current_node))

    def release(self) -> None:
        """The forward button: the light's stop no longer holds."""
        self.stopped = False
        self.stopped_lane = None

    def timeout(self) -> int:
        """Counts of silence after which a held robot drives on (0: never)."""
        p = self.params
        at_crossroad = self.stopped_lane is not None and self.stopped_lane[0] == 'crossroad'
        return (p.light_timeout_crossroad or p.light_timeout) if at_crossroad else p.light_timeout

    def held_wheels(self, rear: int) -> tuple[int, int]:
        """The wheels of a robot held by a light: still, or backing straight, slowly, to where it
        hears its crossroad's light again (light_edge). The light sends every event and the robot
        stands still, so a robot that has not heard the light since the red stopped it stopped
        just past where the light reaches, and would otherwise wait for the dead light's timeout
        through greens it cannot hear. It backs rather than drives on (as a robot 1 mm further
        would have): driving on into the all red put it in the way of the green's last robots
        inside the crossroad (docs/traffic_log.md, session 21). The backing stops when the light
        is heard, after REFIND_CM, or with something close behind (`obs_threshold_max`).
        """
        if self.refinding and self.unheard_since_stop and rear <= self.params.obs_threshold_max:
            self.refinding -= 1
            return -REFIND_SPEED, -REFIND_SPEED
        self.refinding = 0
        return 0, 0

    def tick(self, ctl) -> bool:
        """Each event: finding the light again (light_edge) and the timeout (when set), the end of
        the siding lane; True while held.
        """
        self.since_light = min(self.since_light + 1, LIGHT_NEAR + 1)
        if self.arms and not self.stopped and self.context(ctl) is None:
            self.arms.clear()  # the approach is over: the next crossroad's lights are others
        if self.stopped or not self.increment_counter:
            self.quiet += 1
            timeout = self.timeout()
            if self.quiet == self.params.light_edge and self.unheard_since_stop \
                    and self.stopped_lane is not None and self.stopped_lane[0] == 'crossroad':
                self.refinding = REFIND_EVENTS
                ctl.events.append(Event('light_refind', {'lane': 'crossroad'}))
            if timeout and self.quiet > timeout:
                self.go(ctl, None, self.stopped_lane or ('siding', ctl.current_node))
            elif self.stopped and ctl.policy.priority_behind(ctl):
                self.go(ctl, None, self.stopped_lane, 'priority')
        if ctl.light_lane == 'siding' and ctl.state is State.ROAD and not self.stopped \
                and ctl.policy.siding_lane_advances(ctl):
            ctl.light_lane_count += 1
            if ctl.light_lane_count > self.params.light_siding_count:
                ctl.light_lane = None
                ctl.policy.on_siding_lane_left(ctl)
        return self.stopped
