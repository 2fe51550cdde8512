# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Clear the merge in the all red: a robot leaving a location's siding that has heard its lane's
go since it left the stop drives on through the all red (``node+60``) that follows, which is the
light's clearance for it; the road's green (``node+40``) still stops it. Stopped by the all red,
it stood in the siding's exit curve, where a road robot sees it at its front right and stops,
and the road lane stood until the siding's next green. The release is forgotten when the robot
enters a siding and when it waits for its light again after making way.
"""
from __future__ import annotations

from thymio_road.control.rules import register, Rule


@register
class SidingClearance(Rule):
    name = 'siding_clearance'

    #: The siding's go heard since the robot left the stop.
    released = False

    def siding_stop(self, command: str, stop: bool) -> bool:
        if not stop:
            self.released = True
        elif command == 'all_stop' and self.released:
            return False
        return stop
