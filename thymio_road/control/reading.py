# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Barcodes (report §5, Appendix A): the trigger, the timed READ state, and Table 6's codes."""
from __future__ import annotations

import math

from thymio_road.control.aseba import adiv
from thymio_road.control.events import Action, Event, INTERSECTION_CODES, State
from thymio_road.map.barcode import BIT_LENGTH, BLACK_MARGIN_CM, decode_matched

#: Report eq. (1), the barcode bit (§5) and the event period, for the matched reading.
SPEED_CM_PER_UNIT = 0.032
BIT_CM = BIT_LENGTH * 100
EVENT_PERIOD = 0.1
#: read_method 'inset': how far into its bit a sample lies at least, for a trigger at the sync
#: bit's edge and eq. (1)'s distance per event: the bit's printed black starts BLACK_MARGIN_CM
#: in, and a robot 1 % short of eq. (1) samples bit 3 about 0.08 cm early.
INSET_CM = 0.2


class BarcodeReading:
    """The reading half of the report's machine (mixed into :class:`ReportMachine`)."""

    @property
    def interval(self) -> int:
        """Events per bit: interval = 2·SPEED_HIGH / speed (eq. 2), integer as on the robot."""
        return adiv(2 * self.params.speed_high, max(abs(self.speed), 1))

    @property
    def step_cm(self) -> float:
        """Distance travelled per event at the current speed, by eq. (1)."""
        return max(abs(self.speed), 1) * SPEED_CM_PER_UNIT * EVENT_PERIOD

    def read_schedule(self) -> tuple[int, int, int, int]:
        """READ counts (the trigger event is 1) of the three samples and of the end (Appendix A)."""
        i = self.interval
        report = tuple(1 + adiv((2 * k + 1) * i - 1, 2) for k in (1, 2, 3, 4))
        method = self.params.read_method
        if method == 'inset':
            # At 150 the report's third sample lies 0.6 mm into bit 3 for a trigger at the sync
            # bit's edge, so a robot 1 % short of eq. (1) reads that bit in bit 2. Moved one
            # event on it is 5.4 mm in, and still 2 cm before the code's end for a trigger that
            # came late (the strict security waits for the follow sensor after a curve: up to
            # 1.7 cm, docs/barcodes.md).
            step = self.step_cm
            first, second, third = (max(c, 1 + math.ceil((k * BIT_CM + INSET_CM) / step - 1e-9))
                                    for k, c in zip((1, 2, 3), report))
            return first, second, third, max(report[3], third)
        if method != 'centred':
            return report  # type: ignore[return-value]
        # The trigger fires somewhere in the sync bit's first event of travel, half a step in on
        # average; a sample n events later lies n steps further. The report's integer interval
        # drifts from the bits (above). Centred, each sample has about half a bit less half a
        # step of room either way, which is too little for the triggers that come late in
        # traffic (docs/barcodes.md: why final_traffic uses 'inset').
        step = self.step_cm
        first, second, third = (1 + round(((k + 0.5) * BIT_CM - step / 2) / step) for k in (1, 2, 3))
        return first, second, third, max(report[3], third)

    def _matched_end(self) -> int:
        """Count at which a matched read has seen the whole barcode (and left its last bit)."""
        return 1 + math.ceil((4 * BIT_CM + BLACK_MARGIN_CM) / self.step_cm)

    def _triggers(self, follow: int, read: int, marks: str = '') -> bool:
        """A black bit under the reading sensor, with the report's security (§5, §9). The strict
        security is not applied to the crossroad's marks (`marks='crossroad'`): on its 10.8 cm
        circle the follow sensor rides well on the dark side of the grey reference, which is how
        the P controller turns that tightly. At a location's marks and on the barcode that names
        it (`marks='location'`) it asks only for printed black: there the line following may
        swing after a light's hold, and a missed merge mark sends the robot down the location's
        lane as if it were the road; just after the siding's S-curve the follow sensor still
        swings, and a trigger held back until it settles comes late into the name's bits, so every
        sample falls a bit late (docs/traffic_log.md, session 19). Printed black alone never
        triggers on the road's edge.
        """
        p = self.params
        if read >= p.grey_thresh or follow >= p.grey_ref + p.white_margin or self.marks_suppressed():
            return False
        if p.trigger_security == 'strict' and marks != 'crossroad':
            dark = read < p.black_ratio * p.grey_ref
            return dark if marks == 'location' else dark and abs(follow - p.grey_ref) < p.white_margin // 2
        return True

    def _back_off(self) -> None:
        """Another robot is on the barcode at the trigger: back up at the lowest speed for 1.2 s (§6)."""
        self.events.append(Event('back', {'speed': self.speed}))
        self.counter = 0
        self.speed = -self.params.speed_low
        self._set_state(State.BACK)

    def _start_read(self, follow: int, read: int) -> None:
        self.events.append(Event('trigger', {'speed': self.speed, 'ground': [follow, read]}))
        self.old_state = self.state
        self._set_state(State.READ)
        self.counter_read = 0
        self.code = 0
        self.samples = []

    def _read(self, read: int) -> None:
        self.counter_read += 1
        c = self.counter_read
        if self.params.read_method == 'matched':
            self.samples.append(read)
            if c < self._matched_end():
                return
            black = [v < self.params.grey_thresh for v in self.samples]
            self.code = decode_matched(black, self.step_cm)
        else:
            first, second, third, end = self.read_schedule()
            if c in (first, second, third):
                self.samples.append(read)
                if read < self.params.grey_thresh:
                    self.code += {first: 1, second: 2, third: 4}[c]
            if c != end:
                return
        self.events.append(Event('barcode', {'code': self.code, 'speed': self.speed,
                                             'interval': self.interval, 'samples': self.samples}))
        self.on_code_tail = read < self.params.grey_thresh
        self._set_state(self.old_state)
        if self.state is State.ROAD and self.params.barcode_actions:
            self._apply_road_code(self.code)
        elif self.state is State.EXIT and self.action is Action.LOCATION:
            # Inside a location a barcode names the place (Table 6).
            self.location = self.code
            self.events.append(Event('location', {'number': self.code}))

    def _apply_road_code(self, code: int) -> None:
        """Table 6, on the road: 1-3 set the speed; 4-7 announce an intersection."""
        p = self.params
        speeds = {1: p.speed_low, 2: p.speed_med, 3: p.speed_high}
        if code in speeds:
            if speeds[code] != self.speed:
                self.events.append(Event('speed', {'from': self.speed, 'to': speeds[code]}))
                self.speed = speeds[code]
            return
        action = INTERSECTION_CODES.get(code)
        if action is None:
            return
        # Intersections are driven at the lowest speed; a location and a crossroad also leave
        # at it (Appendix A: savedSpeed = SPEED_LOW for codes 5 and 6).
        self.saved_speed = p.speed_low if action in (Action.CROSSROAD, Action.LOCATION) else self.speed
        self.speed = p.speed_low
        self.action = action
        self.light_lane = None  # a new node: the previous location's light no longer speaks to it
        self.policy.on_intersection(self)
        if action is Action.LOCATION:
            self.location = None  # until this location's barcode is read
        self.counter_continue = 0
        self.events.append(Event('intersection', {'action': action.name.lower()}))
        if action is Action.CROSSROAD:
            # The report draws the way on the barcode ("call math.rand(random); decisionState =
            # random%3"); we draw it at the first mark, before anything depends on it, so that
            # a route planner has seen the robot arrive at this node (Navigator).
            self.direction = ''
            self.turned_left = False
        self._set_state(State.ACTION)
