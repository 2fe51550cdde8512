# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Finding the road again (report §4) and, with recovery 'both', from its wrong side too
(docs/navigation.md): the wrong-way test, the U-turn and the left spin after a blind crossing.
"""
from __future__ import annotations

from collections import deque

from thymio_road.control.aseba import adiv
from thymio_road.control.events import Action, Event, State

#: Events after a location's blind crossing during which a road lost on white, when the crossing
#: took the follow sensor over black, is found by spinning left (see Recovery.spin).
CROSSED_DARK_WINDOW = 30


class Recovery:
    """The road lost: the report spins with the sign of the reading, so that from the black side
    it finds the road backwards (§4). Recovery 'both' also recognises the wrong-way drive this
    leads to and turns round on the spot: a robot driving backwards follows the lane's sharp
    outer edge, where the follow reading jumps between white and black from one event to the
    next, while on the gradient it changes smoothly (ControllerParams.wrong_way_jitter).
    """

    def __init__(self, params) -> None:
        self.params = params
        self.both = params.recovery == 'both'
        #: The changes between successive follow readings in ROAD, their sum, the last reading.
        self._follow_steps: deque[int] = deque(maxlen=params.wrong_way_window - 1)
        self._steps_sum = 0
        self._last_diff: int | None = None
        #: Events of U-turn left.
        self.uturn = 0
        #: A location's blind crossing took the follow sensor over the road's black, events
        #: since that crossing ended, and a left spin under way.
        self._crossed_dark = False
        self._since_crossing = CROSSED_DARK_WINDOW + 1
        self.spin_left = False

    def note_crossing(self, machine, follow: int) -> None:
        """Whether a location's blind crossing takes the follow sensor over black."""
        p = self.params
        if machine.state is State.CONTINUE:
            if self._since_crossing:
                self._crossed_dark = False  # a new crossing
            self._since_crossing = 0
            if self.both and machine.action is Action.LOCATION and follow < p.grey_ref - p.lost_threshold:
                self._crossed_dark = True
        elif self._since_crossing <= CROSSED_DARK_WINDOW:
            self._since_crossing += 1

    def at_rest(self) -> bool:
        """Neither spinning, turning round, nor counting the events after a blind crossing:
        :meth:`note_crossing` and the line following change nothing here but the wrong-way window,
        which :meth:`turning` keeps.
        """
        return not self.spin_left and not self.uturn and self._since_crossing > CROSSED_DARK_WINDOW

    def spin(self, machine, diff: int) -> tuple[int, int]:
        """Road lost: spin on the spot. With the report's sign it finds the road again only from
        the white side (§4). A robot that lost the road on white within CROSSED_DARK_WINDOW events
        of a location's blind crossing that took its follow sensor over the road's black is
        beyond the road's right edge: it spins left until it finds it (else it would find the
        road backwards and drive the location's lanes the wrong way, in ACTION, where the
        wrong-way test does not run).
        """
        p = self.params
        if diff > 0 and self._crossed_dark and self._since_crossing <= CROSSED_DARK_WINDOW:
            if not self.spin_left:
                machine.events.append(Event('spin_left', {'follow': diff + p.grey_ref}))
            self.spin_left = True
        if self.spin_left:
            return -adiv(abs(diff), p.spin_divisor), adiv(abs(diff), p.spin_divisor)
        return adiv(diff, p.spin_divisor), adiv(-diff, p.spin_divisor)

    def found(self) -> None:
        """The road is under the follow sensor again: a left spin ends."""
        if self.spin_left:
            self.spin_left = self._crossed_dark = False

    def turning(self, machine, diff: int) -> tuple[int, int] | None:
        """Recovery 'both': the wrong-way test in ROAD and the U-turn; the wheels while it turns
        round, else None. (Remembering the side the road was lost on and spinning that way was
        tried and not kept: docs/traffic_log.md.)
        """
        p = self.params
        if self.uturn:
            self.uturn -= 1
            # The lane's gradient lies on its right: turning right puts the follow sensor on it.
            return p.speed_low, -p.speed_low
        if machine.state is not State.ROAD:
            self._clear_jitter()
            return None
        if abs(diff) > p.lost_threshold:
            return None  # searching: neither following the gradient nor the edge
        steps = self._follow_steps
        if self._last_diff is not None:
            if len(steps) == steps.maxlen:
                self._steps_sum -= steps[0]
            steps.append(abs(diff - self._last_diff))
            self._steps_sum += steps[-1]
        self._last_diff = diff
        if len(steps) == steps.maxlen and self._steps_sum > p.wrong_way_jitter * len(steps):
            jitter = self._steps_sum // len(steps)
            self._clear_jitter()
            self.uturn = p.uturn_count
            machine.events.append(Event('wrong_way', {'jitter': jitter}))
            return self.turning(machine, diff)
        return None

    def _clear_jitter(self) -> None:
        self._follow_steps.clear()
        self._steps_sum = 0
        self._last_diff = None
