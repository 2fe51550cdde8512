# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Watch the front-left sensor while merging from the right: in a location's siding lane, for
``link_merge_count`` driving events after that lane ends (``light_siding_count``), and as long
after leaving a branching by its link. The siding or the link joins the other road from its
right, and a robot passing there is seen on the front-left sensor only (the parallel lanes of
§7.2 do not see each other), so the avoidance counts it as a front one. It also tells the
blocked-crossing rule that the robot drives a branching's link, where the two links cross.
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.rules import register, Rule


@register
class MergeWatch(Rule):
    name = 'merge_watch'

    #: Driving events left, and whether they are a branching link's (rather than a siding's).
    count = 0
    link = False

    def arm(self, on_link: bool) -> None:
        self.count, self.link = self.params.link_merge_count, on_link

    def count_down(self) -> None:
        self.count = max(0, self.count - 1)

    def front(self, ctl, percept) -> int:
        if ctl.light_lane == 'siding' or self.count:
            return max(percept.front, percept.front_left)
        return percept.front

    def on_link(self, ctl) -> bool:
        """Leaving a branching by its link: in EXIT, or in ROAD within the link's merge."""
        return ((ctl.state is State.EXIT and ctl.action is Action.BRANCHING)
                or (ctl.state is State.ROAD and self.link and self.count > 0))
