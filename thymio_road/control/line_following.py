# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Line following (report §4, Appendix A): the P controller on the left ground sensor, the
collision avoidance (§6, Fig. 10) and the spin that finds a lost road.
"""
from __future__ import annotations

from thymio_road.control.aseba import adiv, clip
from thymio_road.control.events import State
from thymio_road.control.percept import Percept


class LineFollowing:
    """The driving half of the report's machine (mixed into :class:`ReportMachine`)."""

    def _gain(self) -> int:
        """Proportional gains as dividing factors per state (§4): ROAD/BACK, READ, ACTION/EXIT."""
        p = self.params
        if self.state in (State.ROAD, State.BACK):
            return p.gain_road
        if self.state is State.READ:
            return p.gain_read
        return p.gain_action

    def _follow_line(self, percept: Percept) -> tuple[int, int]:
        """P line following on the left ground sensor with collision avoidance (Appendix A)."""
        p = self.params
        diff = percept.follow - p.grey_ref
        recovery = self.recovery
        if recovery.both:
            turning = recovery.turning(self, diff)
            if turning is not None:
                return turning
        k = self._gain()
        add_left, add_right = adiv(diff, k), adiv(-diff, k)
        left, right = self.speed + add_left, self.speed + add_right
        front = self.policy.front(self, percept) if self.policy.watches_front_left else percept.front
        if (p.avoidance != 'off' and front > p.obs_threshold
                and self.state in (State.ROAD, State.ACTION, State.EXIT)):
            if p.avoidance == 'v2':
                # Slow down in proportion to the obstacle and to the nominal speed (§6, Fig. 10).
                excess = front - p.obs_threshold
                slow = adiv(excess, adiv(75, 1 + adiv(self.speed, p.speed_low)))
                left, right = left - slow, right - slow
            if p.avoidance == 'v1' or front > self.policy.stop_at(self):
                left, right = 0, 0
                self.obstructed = True
        elif self.state is State.BACK and percept.rear > p.obs_threshold_max:
            left, right = 0, 0
        if abs(diff) > p.lost_threshold:
            left, right = recovery.spin(self, diff)
        elif recovery.spin_left:
            recovery.found()
        return clip(left), clip(right)
