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
moving robot is past it at the next event; one that a light stops right after the read stands
on it, and on the go takes it for the intersection's first mark, so it counts every mark after
it one early (a crossroad jammed for an hour: docs/traffic_log.md, session 19). The report's
rules keep the report's behaviour.
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
