# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Abandon a reading, or a location's blind crossing, that has stood ``facing_light_count``
events stopped by something in front that is no robot it hears, near a traffic light: the robot
faces the light (a Thymio that never moves), and only following the line turns it away. A robot
whose follow sensor met the road's black edge in a siding's last bend spins across the road and
its reading sensor may trigger on the edge; a robot whose line following swung hard at a
location's mark crosses blind towards the light beside the road. Without this, both wait until
the give-up, then back and lose the road. A robot crossing the merge does not take a robot
at its front right only for the light: that one came out of the siding (rules/blocked_crossing.py
backs for it). A priority vehicle, which passes reds, still hears that it is near a light.
"""
from __future__ import annotations

from thymio_road.control.events import Action, Event, State
from thymio_road.control.rules import register, Rule


@register
class FacingLight(Rule):
    name = 'facing_light'

    def facing(self, ctl, percept) -> bool:
        row, p = self.row, self.params
        if not (row.blocked >= p.facing_light_count and row.ahead() is None and ctl.lights.near_light()):
            return False
        # Crossing the merge, what stands at the front right only came out of the siding.
        return not (self.policy.blocked_crossing.crossing(ctl) and percept.front_right_only(p.obs_threshold))

    def on_front_obstacle(self, ctl, percept) -> None:
        if not self.facing(ctl, percept):
            return
        if ctl.state is State.READ:
            # Back to the state the trigger interrupted; at a siding exit the robot is then off
            # the road, and its line following spins to find it again.
            ctl.events.append(Event('read_abandoned', {'count': ctl.counter_read, 'samples': ctl.samples}))
            ctl._set_state(ctl.old_state)
        elif ctl.state is State.CONTINUE and ctl.action is Action.LOCATION:
            # End the blind drive as its count would: past the merge's mark the robot leaves the
            # location, and its line following turns it from the light back to the road.
            ctl.events.append(Event('crossing_abandoned', {'mark': ctl.counter_continue, 'count': ctl.counter}))
            ctl._set_state(State.ACTION)
