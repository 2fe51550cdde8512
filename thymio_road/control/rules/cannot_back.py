# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Make way, after ``crossing_give_up_count`` events, for a robot in front that makes way for this
one but cannot back: it asks the robot behind it to back up (``BACK_UP``), and that one may not
hear it (rear receivers hear only 15.5 cm). Without this, the robot in front and this one wait for
each other. A priority vehicle never does.
"""
from __future__ import annotations

from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class CannotBack(Reason):
    name = 'cannot_back'
    precedence = 40

    def fires(self, ctl, role: Role, percept) -> int | None:
        row = self.row
        blocked_long = row.blocked >= self.params.crossing_give_up_count
        if blocked_long and role is not Role.PRIORITY and row.ahead_cannot_back is not None:
            return row.ahead() or 0
        return None
