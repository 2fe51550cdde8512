# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Watch the front-right sensor while entering a roundabout: from the roundabout's code to the
entry's mark, the right sensor (4) counts as a front one. The entry turns right into the ring,
and the ring robot the entering robot yields to passes across its front from left to right and
on along the ring, where only that sensor sees it. The yield ends when the robot stops hearing
that robot (its emitters turn away as it drives round), not when it has gone: a robot that then
drove on could turn into it, standing in a queue on the ring just past the entry. The report's
rules look at sensors 1-3 only (§6). The runs it came from: docs/traffic_log.md, session 16.

Turning onto a branching's link (its EXIT) the robot watches that sensor too: the link turns
sharply right off the road, and a robot standing at the link's start, where it met one on the
other link, stands 41° to the right of the next robot leaving by the same link, which turned
into its flank (`final_traffic`, 15 robots, seed 12, and the same at seeds 21, 24 and 29; sessions 18-19).
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.rules import register, Rule


@register
class EntryWatch(Rule):
    name = 'entry_watch'

    @staticmethod
    def watches_right(ctl) -> bool:
        """Entering a roundabout (after its code, before the entry's mark), or turning onto a
        branching's link.
        """
        if ctl.action is Action.BRANCHING:
            return ctl.state is State.EXIT
        return ctl.action is Action.ROUNDABOUT and ctl.counter_continue == 0 and ctl.state is State.ACTION
