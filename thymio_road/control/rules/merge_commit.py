# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Commit to a location's merge: a robot on the road lane obeys the location's light only until
it has driven ``light_road_count`` events at the lowest speed past the siding's entry (its wheel
commands are summed, so a robot slowed behind another counts less). Past that (31 cm before the
merge with the shipped 0.5 m parallel, where it starts to hear the light 36 cm before it) it
drives through a red: stopped closer, it stood beside the siding's exit curve, in the way of the
robot the light let out next.
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.rules import register, Rule


@register
class MergeCommit(Rule):
    name = 'merge_commit'

    #: Motor units per event driven past the siding's entry on the road lane.
    travel = 0

    def after_step(self, ctl, wheels: tuple[int, int]) -> None:
        if ctl.action is Action.LOCATION and ctl.counter_continue == 1 and ctl.state is not State.STOP:
            self.travel += max(0, (wheels[0] + wheels[1]) // 2)
        else:
            self.travel = 0

    def committed(self) -> bool:
        p = self.params
        return self.travel > (p.crossing + 1 + p.light_road_count) * p.speed_low
