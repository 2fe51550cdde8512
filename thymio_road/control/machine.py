# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The report's state machine (§3, §7, Appendix A): one handler per state, free of traffic rules.

Where the traffic policies differ (control/policies.py), the machine asks its `policy` through a
named hook; with the report's policy every hook answers as the report's robots did.
"""
from __future__ import annotations

import math
import random
from typing import Callable

from thymio_road.control.aseba import adiv, clip
from thymio_road.control.events import Action, Event, State
from thymio_road.control.line_following import LineFollowing
from thymio_road.control.params import ControllerParams
from thymio_road.control.percept import Percept
from thymio_road.control.reading import BarcodeReading


class ReportMachine(LineFollowing, BarcodeReading):
    """Appendix A's variables and states. The pipeline that runs them each event, the lights and
    the right of way are the controller's (control/controller.py).
    """

    def __init__(self, params: ControllerParams, state: State) -> None:
        self.params = params
        self.state = state
        self.speed = params.speed
        self.events: list[Event] = []
        self.counter = 0
        self.old_state = state
        self.counter_read = 0
        self.code = 0
        self.samples: list[int] = []
        #: A read has ended and the reading sensor has not seen white since: it may still stand on
        #: the code's last bit (the improved rules take no trigger there: code_tail).
        self.on_code_tail = False
        # Intersections (report §7).
        self.action: Action | None = None
        self.saved_speed = self.speed
        self.counter_continue = 0
        self.read_location = False
        self.delivering = False
        self.location: int | None = None
        self.rng = random.Random(params.seed)
        #: Decides 'exit' or 'continue' at a mark: (action, marks passed) → choice. Random by
        #: default, as in the report; a route follower replaces it.
        self.decide: Callable[[Action, int], str] = self._random_choice
        #: Picks 'right', 'straight' or 'left' when a crossroad is announced.
        self.choose_direction: Callable[[], str] = lambda: self.rng.choice(('right', 'straight', 'left'))
        self.direction = ''
        self.turned_left = False
        #: On a ring, centimetres driven (wheel commands by eq. 1, backing subtracts) since the
        #: last mark, and how far past it the robot concludes it has left the ring: infinite (never)
        #: unless a navigator that knows the ring's marks says otherwise.
        self.since_mark_cm = 0.0
        self.mark_overdue_cm: Callable[[], float] = lambda: math.inf
        #: Crossing blind after a ring's mark, with the reading sensor's look at where a barcode's
        #: first bit would lie still due (a policy that notices leaving a ring: _mark_was_a_code).
        self.checking_mark = False
        #: 'siding' from the exit into a location's siding until it has driven out of it.
        self.light_lane: str | None = None
        self.light_lane_count = 0
        #: Something in front stopped the robot this step (and the step before).
        self.obstructed = False
        self._last_obstructed = False

    def wake(self) -> None:
        """Something changed the robot outside its step pipeline (a message heard, a button, a
        light, a rule started from outside, a state set): the next step runs the whole pipeline
        again (RoadController's rest steps).
        """
        self._rest = None

    def _set_state(self, state: State) -> None:
        self.wake()
        if state is not self.state:
            self.events.append(Event('state', {'from': self.state.name, 'to': state.name}))
            self.state = state

    # --- BACK (§6) ------------------------------------------------------------------------------
    def _back(self) -> None:
        self.counter += 1
        if self.counter >= self.params.back_count:
            # "I always assigned the slowest speed possible when starting moving forwards again" (§6)
            self.speed = self.params.speed_low
            self._set_state(State.ROAD)

    # --- intersections (report §7, Appendix A) -----------------------------------------------------
    def _random_choice(self, action: Action, passed: int) -> str:
        return 'exit' if self.rng.random() < 0.5 else 'continue'

    def _leave_intersection(self) -> None:
        self.speed = self.saved_speed
        self.checking_mark = False
        self.events.append(Event('left', {'action': self.action.name.lower() if self.action is not None else None}))
        self.action = None
        self._set_state(State.ROAD)

    def _action(self, follow: int, read: int) -> None:
        """ACTION: follow the line (gain 2) and act on each mark as decided."""
        if self.action in (Action.BRANCHING, Action.LOCATION) and self.counter_continue >= 2:
            # "If continue was chosen, return to road state after two readings."
            self._leave_intersection()
            return
        if self.action is Action.CROSSROAD:
            if self.counter_continue == 3:
                # "I decided to force the fourth continue action directly at the end of the
                # third one" (§7.4): the last bit was often missed.
                self.counter_continue = 4
                self.counter = 0
                self._set_state(State.CONTINUE)
                return
            if self.counter_continue == 4:
                self._leave_intersection()
                return
        marks = 'crossroad' if self.action is Action.CROSSROAD else 'location' if self.action is Action.LOCATION else ''
        if not self._triggers(follow, read, marks):
            return
        self.counter = 0
        self.since_mark_cm = 0.0
        assert self.action is not None
        if self.action is Action.CROSSROAD:
            self._crossroad_mark()
            return
        may_exit = not (self.action is Action.ROUNDABOUT and self.counter_continue % 2)
        may_exit = may_exit and not (self.action in (Action.BRANCHING, Action.LOCATION)
                                     and self.counter_continue >= 1)
        choice = self.decide(self.action, self.counter_continue) if may_exit else 'continue'
        self.events.append(Event('decision', {'action': self.action.name.lower(), 'mark': self.counter_continue,
                                              'choice': choice}))
        if choice == 'exit':
            if self.action is Action.LOCATION:
                self.read_location = False
                self.light_lane, self.light_lane_count = 'siding', 0
                self.policy.on_siding_entered(self)
            self._set_state(State.EXIT)
        else:
            self.counter_continue += 1
            self.checking_mark = self.action is Action.ROUNDABOUT and self.policy.notices_left_ring \
                and self.params.read_method != 'matched'
            self._set_state(State.CONTINUE)

    def _crossroad_mark(self) -> None:
        """The crossroad's sequences (§7.4): right exits at the first bit; straight crosses four
        times; left crosses twice, follows the central circle from the third bit (EXIT, then
        back to ACTION) and crosses twice more from the next one.
        """
        if not self.direction:
            self.direction = self.choose_direction()
            self.events.append(Event('decision', {'action': 'crossroad', 'mark': 0, 'choice': self.direction}))
        if self.direction == 'right' and self.counter_continue == 0 or \
                self.direction == 'left' and self.counter_continue == 2 and not self.turned_left:
            self._set_state(State.EXIT)
            return
        self.counter_continue += 1
        self._set_state(State.CONTINUE)

    def _cross(self, percept: Percept) -> tuple[int, int]:
        """CONTINUE: drive blind across the exit or entry, with a slight left bias (§7.1, §9).

        Something in front stops the robot and freezes the count, since the crossing is timed
        (§6: "it stops the timer responsible for this motion without line following").
        """
        p = self.params
        if p.avoidance != 'off' and percept.front > p.obs_threshold:
            self.obstructed = True
            return 0, 0
        self.counter += 1
        assert self.action is not None
        bias = getattr(self.params, f'bias_{self.action.name.lower()}')
        if self.action is Action.CROSSROAD and self.turned_left:
            bias = self.params.bias_crossroad_left
        left, right = adiv(bias * self.speed, 100), self.speed
        if self.checking_mark and self.counter + 1 >= self.read_schedule()[0]:
            self.checking_mark = False
            if percept.read < p.grey_thresh:
                self._mark_was_a_code(percept)
                return clip(left), clip(right)
        if self.counter > self.params.crossing:
            self._set_state(State.ACTION)
        return clip(left), clip(right)

    def _mark_was_a_code(self, percept: Percept) -> None:
        """The ring's "mark" had a black bit after it, where a barcode's first bit lies: it was
        the sync bit of a road's code, and the robot is on that road, not on the ring. It leaves
        the ring and reads the code from here on, on the READ's own schedule (the trigger was the
        mark; this sample is the first bit's), then acts on it as on any road.

        A ring's marks are lone sync bits, and the codes that announce an intersection next to a
        ring (5 a crossroad, 7 a roundabout) have a black first bit. A robot that a blind
        crossing left on an exit's band instead of the ring counted the next code's sync bit as
        its next mark, crossed blind again and turned round onto the oncoming lane, head to head
        with the robots that followed it out (final_traffic, 10 robots, seeds 22 and 29, 3600 s:
        R2's west exit onto the balloon; docs/traffic_log.md, session 18).
        """
        speed = self.speed
        self.events.append(Event('left_unawares', {'action': self.action.name.lower() if self.action else None,
                                                   'marks': self.counter_continue, 'reason': 'code'}))
        self._leave_intersection()
        self.speed = speed  # the code is read at the speed its schedule started with
        self._start_read(percept.follow, percept.read)
        self.counter_read = self.read_schedule()[0] - 1  # this event's _read takes the first bit

    def _exit(self, follow: int, read: int) -> None:
        """EXIT: follow the branch taken; in a location read its barcode, then stop and deliver."""
        if self.policy.exit_frozen(self):
            return
        self.counter += 1
        p = self.params
        if self.action is Action.LOCATION:
            if not self.read_location and read > p.grey_thresh:
                self.read_location = True  # past the entry mark: the next barcode names the place
            elif self.read_location and self._triggers(follow, read, marks='location'):
                self._start_read(follow, read)
                return
            if self.counter > p.location_count:
                self.delivering = True
                self.events.append(Event('stop', {'location': self.location}))
                self._set_state(State.STOP)
        elif self.action is Action.CROSSROAD:
            if self.counter > p.crossroad_exit_count:
                if self.direction == 'left' and not self.turned_left:
                    # "then I forced him to come back to the ACTION state instead of the ROAD state"
                    self.turned_left = True
                    self._set_state(State.ACTION)
                else:
                    self._leave_intersection()
        elif self.counter > p.exit_count:
            if self.action is Action.BRANCHING:
                self.policy.on_link_entered(self)
            self._leave_intersection()

    def _deliver(self, increment: int) -> None:
        """The 2 s stop in a location, then the road at the lowest speed ("like in a village").
        The count stands still while the location's light holds the siding (incrementCounter).
        """
        self.counter += increment
        if self.counter > self.params.location_count + self.params.stop_count:
            self.delivering = False
            self.read_location = False
            self.saved_speed = self.params.speed_low
            self._leave_intersection()
