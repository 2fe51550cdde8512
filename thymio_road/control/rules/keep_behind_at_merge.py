# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Do not draw level with a robot in a location's siding: a robot passing a location on the
road lane (past the siding's entry, before the mark that crosses the merge) counts its right
sensor as a front one, so it slows and stops behind a robot in the siding beside it instead of
drawing level with it. Robots side by side there cannot see each other (the parallel tracks of
§7.2, 13 cm apart here: 2 cm between hulls) nor hear each other (the receivers look forwards and
backwards), and the siding curves into the road within a robot's length: a siding robot setting
off with a road robot level with it turns into that robot's flank. A robot kept behind sees the
siding robot turn in ahead of it and follows it; a siding robot behind a road robot sees it on
its front-left sensor (rules/merge_watch.py).

Not while the location's light gives the road lane green (its go heard in the last 2 s,
``LIGHT_NEAR``): the light holds the siding then, and a road robot kept behind a siding robot the
light holds would stand through its own green. In the light's all red and the siding's green the
light no longer keeps the lanes apart for a road robot that has committed to the merge (it drives
through a red, rules/merge_commit.py): slowed on the way, it can reach the merge after the all red
has run out, beside the siding robot that the siding's green let go (docs/traffic_log.md, session
20). Not for a priority vehicle: the others give way to it
(report §11), and kept behind robots delivering in the sidings it lost the time it is meant to
save. The runs: docs/traffic_log.md, session 16.
"""
from __future__ import annotations

from thymio_road.control.events import Action, State
from thymio_road.control.rules import register, Rule


@register
class KeepBehindAtMerge(Rule):
    name = 'keep_behind_at_merge'

    @staticmethod
    def watches_right(ctl) -> bool:
        """On a location's road lane before its merge, not in its light's green for the road,
        not a priority vehicle.
        """
        return (ctl.action is Action.LOCATION and ctl.counter_continue == 1 and ctl.state is State.ACTION
                and not ctl.lights.says_go(ctl.current_node) and ctl.params.kind != 'priority')
