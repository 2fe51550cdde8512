# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Yield at a roundabout's entry (or leaving a location's siding, not turning into it) while a robot
of a higher role is heard in front: the ring has the right of way (report §7.3, §8: "the robot
should check if it can enter"). At a crossroad, before its first mark, a robot yields alike to a
robot inside the crossroad (past its first mark) heard in front, its own arm's included: the square
holds about two robots, and the two arms of one phase cross each other's ways there (a left turn
leaves across the opposite in-lane), so robots that drove in behind ones still inside stood in a
ring of waits, four of them for minutes (held-out generated:7038, 7096; docs/traffic_log.md,
session 17, which also has the narrower versions that failed). A robot leaving a branching by its
link yields alike until it has merged (``merge_watch.on_link``): the link joins the other road
across the way of a robot crossing the branching blind, and the two see each other about 60° off
their headings, beyond the sensors the avoidance watches (held-out generated:7097). At most
``yield_max`` events per attempt to enter, so that a robot heard but not in the way cannot hold it
for good. Making way starts a new attempt (:meth:`YieldAtEntry.restart`): a robot whose yield was
spent on a ring robot standing in front of the entry, and that made way for it, would otherwise
drive in at once, before the next ring robot. Something in front as close as a stop
(``obs_threshold_max``) while it yields makes it a robot standing blocked: the rule
in_the_ring_path then backs it out of the ring's lane.
"""
from __future__ import annotations

from thymio_road.control.events import Action, Event, State
from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import register, Rule


@register
class YieldAtEntry(Rule):
    name = 'yield'

    #: Events yielded at this intersection.
    yielded = 0
    #: Whether it yielded this step (the YIELDING mode).
    yielding = False
    #: The robot it yields to (0: none yet).
    to = 0

    def on_intersection(self) -> None:
        self.yielded = 0

    def restart(self) -> None:
        """The robot made way: driving on again is a new attempt to enter."""
        self.yielded = 0

    @staticmethod
    def at_crossroad_entry(ctl, role: Role) -> bool:
        """Before a crossroad's first mark, having read its code (a robot there announces ROAD)."""
        return (role is Role.ROAD and ctl.action is Action.CROSSROAD and ctl.state is State.ACTION
                and ctl.counter_continue == 0)

    @staticmethod
    def turning_into_siding(ctl) -> bool:
        """Between a location's entry mark and its stop (EXIT, and reading the location's name):
        the robot announces ENTERING like one leaving the siding, but it joins no road here, so
        a yield to the road robots beside it only stops the robots crossing the entry blind
        behind it (docs/traffic.md, the yield rule).
        """
        return ctl.action is Action.LOCATION and ctl.state in (State.EXIT, State.READ)

    def wheels(self, ctl, role: Role, percept) -> tuple[int, int] | None:
        self.yielding = False
        if self.yielded < self.params.yield_max:
            if role is Role.ENTERING:
                if self.turning_into_siding(ctl):
                    return None
                other = self.row.higher_ahead(role)
            elif self.at_crossroad_entry(ctl, role) or self.policy.merge_watch.on_link(ctl):
                other = self.row.higher_ahead(Role.ROAD)  # inside the intersection, or a priority vehicle
            else:
                return None
            if other is not None:
                if not self.yielded:
                    ctl.events.append(Event('yield', {'to': other}))
                self.yielded += 1
                self.yielding, self.to = True, other
                if percept.front > self.params.obs_threshold_max:
                    ctl.obstructed = True
                return 0, 0
        return None
