# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Make way, after ``crossing_give_up_count`` events, when crossing blind (CONTINUE) on a
roundabout's ring past an entry or exit, in the crossroad, past a location's merge, or driving a
branching's link, and stopped by a robot it cannot hear that stands at its front right only (the
centre-right sensor beyond ``obs_threshold``, centre and centre-left below). That robot came in
from the right, which rings, the crossroad's circle and the crossing links turn towards, and
where a siding merges, so driving on brings them closer; the IR cones leave it unheard (a robot
merging from a siding has the crossing robot at 70-80 degrees to its left, beyond its front
receivers), and it often cannot back (a priority vehicle never does, an entering robot often
has a queue behind it, a merging one its siding). Applies to a priority vehicle too.
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class BlockedCrossing(Reason):
    name = 'crossing'
    precedence = 30

    @staticmethod
    def crossing(ctl) -> bool:
        """Crossing blind where a robot may come in from the right: the crossroad, a ring past
        an entry or exit (its second mark on), a location's merge (its second mark).
        """
        return ctl.state is State.CONTINUE and (ctl.action is Action.CROSSROAD or (
            ctl.action in (Action.ROUNDABOUT, Action.LOCATION) and ctl.counter_continue >= 2))

    def fires(self, ctl, role: Role, percept) -> int | None:
        p = self.params
        if self.row.blocked < p.crossing_give_up_count:
            return None
        on_link = self.policy.merge_watch.on_link(ctl)
        if (self.crossing(ctl) or on_link) and percept.front_right_only(p.obs_threshold) and self.row.ahead() is None:
            return 0
        return None
