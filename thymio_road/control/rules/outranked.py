# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Make way for a robot that outranks this one and says this one blocks it (``BLOCKED_BY + id``,
heard on the front sensors). Priority is (role, then lower id): a total order, so of two robots
blocking each other exactly one makes way, and a chain of waits ends at the highest robot in it.
"""
from __future__ import annotations

from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Reason, register


@register
class Outranked(Reason):
    name = 'outranked'
    precedence = 10

    def fires(self, ctl, role: Role, percept) -> int | None:
        return self.row.must_make_way(role)
