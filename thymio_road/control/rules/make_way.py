# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Making way: back up the way it came, then hold until the other has passed.

Prevents two robots that block each other from standing for good (report §8, §11): the reasons
to make way are the rules with a precedence (outranked, gave_up, crossing, cannot_back,
asked_back). Line following backwards is unstable (the sensors lead the wheels), so the robot
replays its last forward commands backwards. The distance backed (motor units per event, summed)
is driven forward again without reading marks or codes it already counted: counted in steps, a
robot that backed a crawl and came back at full speed would wake up in the middle of a code.
Each making of way backs the last ``make_way_count`` commands of a longer trail, so that a robot
asked again backs further. Parameters: make_way_count, make_way_hold, make_way_hold_max,
obs_threshold_max (something close behind stops the backing: the robot then asks it to back up).

In a crossroad the robot's place in its passage is a count (its crossings are timed, its marks
counted), and the line it finds when the count is off is the central circle, which has no code
to end it: backed out of its crossing and driven on by the count, a robot ended on X1's circle
with its passage counted as done, and followed the circle for 49 minutes (issue #27). So there
making way is undone exactly: the counts stand still while it backs, and after the hold it
drives the commands it backed forwards again (waiting while something is in front) before its
state machine runs on, from where it stopped. On a roundabout's ring the line it finds again is
the ring itself, whose marks it counts, and driving the way back exactly returned a ring robot to
the entry it had made way at, where the entering robot it had made way for now stood (15 robots
seed 14: a queue on the link for half an hour), so there it drives on by line following.

A reading is undone exactly too: its count stands while the robot backs and holds, and it goes
on where it stopped once the robot is back there. Abandoned and started again, it began where
the suppression of marks ended, inside the code, and a code 7 (one black band) read as 3 or 1
(held-out generated:7094 and 7088; docs/traffic_log.md, session 17).
"""
from __future__ import annotations

from collections import deque

from thymio_road.control.events import Action, Event, State
from thymio_road.control.rules import register, Rule

#: How many makings of way the forward commands kept for backing cover.
TRAIL_MAKE_WAYS = 4


@register
class MakeWay(Rule):
    name = 'make_way'

    def __init__(self, params, policy) -> None:
        super().__init__(params, policy)
        #: Steps since it started making way (None: not making way), then since it stopped.
        self.making_way: int | None = None
        self.holding: int | None = None
        #: Something close behind stops the backing (the robot asks it to back up).
        self.backing_blocked = False
        self.trail: deque[tuple[int, int]] = deque(maxlen=TRAIL_MAKE_WAYS * params.make_way_count)
        self.retrace: list[tuple[int, int]] = []
        #: Distance (motor units per event, summed) to drive again before marks are read.
        self.suppress = 0
        #: In a crossroad: the commands backed, to drive forwards again (the last first).
        self.owed: list[tuple[int, int]] = []
        self.exact = False
        #: Driving back, stopped by something in front: the reasons to make way may fire again.
        self.blocked_returning = False

    def start(self, ctl, other: int, reason: str, role) -> None:
        ctl.wake()  # (from the selector, or from outside a step)
        self.row.blocked = 0
        self.retrace = [self.trail.pop() for _ in range(min(len(self.trail), self.params.make_way_count))][::-1]
        self.making_way = 0
        self.exact = self.owed != [] or self.inside(ctl) or ctl.state is State.READ
        ctl.events.append(Event('make_way', {'for': other, 'reason': reason, 'role': role.name.lower()}))

    @staticmethod
    def inside(ctl) -> bool:
        """In a crossroad: where a count that is off leaves the robot on a circle without codes."""
        return ctl.action is Action.CROSSROAD

    def active(self) -> bool:
        """Backing, holding or driving back to where it started making way."""
        return self.making_way is not None or self.holding is not None or bool(self.owed)

    def step(self, ctl, percept) -> tuple[int, int] | None:
        """Backing, then holding, then (in a crossroad) driving back: the wheels, or None
        when none of them (or the hold just ended).
        """
        self.blocked_returning = False
        if self.making_way is None and self.holding is None:
            return self._return(ctl, percept) if self.owed else None
        p = self.params
        if self.making_way is not None:
            wheels = self._reverse(ctl, percept)
            if wheels is not None:
                return wheels
            self.making_way, self.holding, self.backing_blocked = None, 0, False
        if self.holding is not None:
            self.holding += 1
            waiting = self.row.blocking is not None or self.holding < p.make_way_hold
            if waiting and self.holding < p.make_way_hold_max:
                return 0, 0
            self.holding = None
            ctl.events.append(Event('resume', {}))
            self.policy.yield_at_entry.restart()
            if ctl.light_lane == 'siding' and not ctl.delivering:
                ctl.lights.hold_in_siding(ctl)
                return 0, 0
            if self.owed:
                return self._return(ctl, percept)
        return None

    def _return(self, ctl, percept) -> tuple[int, int] | None:
        """One of the backed commands forwards again; nothing in front may be driven into."""
        self.blocked_returning = percept.front > self.params.obs_threshold
        if self.blocked_returning:
            ctl.obstructed = True
            return 0, 0
        left, right = self.owed.pop()
        self.trail.append((left, right))
        if not self.owed:
            ctl.events.append(Event('returned', {}))
        return left, right

    def _reverse(self, ctl, percept) -> tuple[int, int] | None:
        """One step back the way it came, waiting while something is close behind; None when
        done. Timed counts (a blind crossing, an exit) run back with it.
        """
        self.making_way += 1
        if not self.retrace or self.making_way > 3 * self.params.make_way_count:
            return None
        self.backing_blocked = percept.rear > self.params.obs_threshold_max
        if self.backing_blocked:
            return 0, 0
        left, right = self.retrace.pop()
        if self.exact:
            self.owed.append((left, right))
            return -left, -right
        if ctl.state in (State.CONTINUE, State.EXIT):
            ctl.counter = max(0, ctl.counter - 1)
        self.suppress += max(0, (left + right) // 2)
        return -left, -right

    def record(self, left: int, right: int) -> None:
        """A forward step: kept for backing, and it eats into the distance not read again."""
        self.trail.append((left, right))
        if self.suppress:
            self.suppress = max(0, self.suppress - max(0, (left + right) // 2))
