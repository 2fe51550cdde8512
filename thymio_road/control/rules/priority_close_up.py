# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Close up to be heard: a priority vehicle behind a robot it hears, or a robot in a queue at a
light that passes "priority behind" on, drives up to ``priority_close_threshold`` (about 15 cm
centre to centre) instead of stopping at ``obs_threshold_max`` (17 cm): a robot's rear receivers
hear the one behind only up to 15.5 cm (enki_doc). Both also pause a reading, or wait at a
barcode's trigger, only that close, so that the robot ahead hears them: a robot that waited at
X1's code with the news stood 23.5 cm behind the robot the light held, which never heard it, and
the ambulance waited behind both for the light's own cycle (priority seed 11).
"""
from __future__ import annotations

from thymio_road.control.rules import register, Rule


@register
class PriorityCloseUp(Rule):
    name = 'priority_close_up'

    def __init__(self, params, policy) -> None:
        super().__init__(params, policy)
        self.priority = params.kind == 'priority'

    def closes_up(self) -> bool:
        row = self.row
        return row.ahead() is not None if self.priority else row.closes_up_for_priority()

    def front_limit(self, ctl) -> int:
        if self.closes_up():
            return self.params.priority_close_threshold
        return self.params.obs_threshold

    def stop_at(self, ctl) -> int:
        p = self.params
        if self.closes_up():
            return max(p.obs_threshold_max, p.priority_close_threshold)
        return p.obs_threshold_max
