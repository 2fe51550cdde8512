# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Give up the way after standing blocked ``give_up_count`` events without help: the other may
not hear this robot (IR reaches about 23 cm, the proximity sensors see farther sideways). In a
queue at a light, or within LIGHT_NEAR of one, it waits twice as long: a red can outlast
``give_up_count``, and a robot that backs from a queue may back over a code and misread it.
``give_up_stagger`` spreads the give-ups by role and id, so that two robots that block each
other without hearing each other do not back, hold and come back together. A priority vehicle
never gives up.
"""
from __future__ import annotations

from thymio_road.control.messages import MAX_ID
from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class GiveUp(Reason):
    name = 'gave_up'
    precedence = 20

    def fires(self, ctl, role: Role, percept) -> int | None:
        p, row = self.params, self.row
        if role is Role.PRIORITY or row.blocked < p.give_up_count:
            return None  # (the patience is never shorter than give_up_count)
        queued = row.in_light_queue(ctl.lights.stopped) or ctl.lights.near_light()
        patience = p.give_up_count * (2 if queued else 1)
        if p.give_up_stagger:
            patience += p.give_up_stagger * int(role) + 2 * (MAX_ID - p.robot_id)
        return row.ahead() or 0 if row.blocked >= patience else None
