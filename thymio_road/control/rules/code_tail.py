# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A code's last bit is not a mark: after a read that ended with the reading sensor still on
black, no trigger until it has read white.

At the lowest speed the report's READ ends 10.56 cm after the trigger (Appendix A's count 23),
while a code's last bit ends at 10.8 cm, as the report warns ("if the reading ends before the
end of the barcode and if the last bit is a black one, it could trigger a new reading"). A
moving robot is past it at the next event; one that X1's light stopped 0.01 s after reading its
code 5 stood there 35 s, and on the go its first step in ACTION took the bit for the crossroad's
first mark: every mark after it counted one early, the robot left the crossroad on its central
circle, and the crossroad jammed for the rest of the hour (`final_traffic`, 15 robots, seed 16,
912 s; docs/traffic_log.md, session 19). The report's rules keep the report's behaviour.
"""
from __future__ import annotations

from thymio_road.control.rules import register, Rule


@register
class CodeTail(Rule):
    name = 'code_tail'

    @staticmethod
    def holds(ctl) -> bool:
        """The reading sensor has not seen white since the last read ended on black."""
        return ctl.on_code_tail
