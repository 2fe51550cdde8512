# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Watch the front-right sensor while entering a roundabout: from the roundabout's code to the
entry's mark, the right sensor (4) counts as a front one. The entry turns right into the ring,
and the ring robot the entering robot yielded to passes across its front from left to right and
on along the ring, where only that sensor sees it; the yield ends when the robot stops hearing it
(its emitters turn away as it drives round), and a robot that then drove on turned into it,
standing in a queue on the ring just past the entry (generated:7032 and 7033, 15 robots, at
110 s: the robots put down on a balloon that rejoins the ring). The report's rules look at
sensors 1-3 only (§6).
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.rules import register, Rule


@register
class EntryWatch(Rule):
    name = 'entry_watch'

    def front(self, ctl, percept) -> int:
        if ctl.action is Action.ROUNDABOUT and ctl.counter_continue == 0 and ctl.state is State.ACTION:
            return max(percept.front, percept.front_right)
        return percept.front
