# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Misread codes the robots acted on (issue #27): a controller's barcode read against the code
printed where its reading sensor entered a barcode (the world's ``barcode_enter`` ground truth).

A read belongs to the latest barcode the robot entered at most :data:`WINDOW` before it (a
reading starts at the trigger, on the first bit, and lasts a few seconds at the lowest speed).
It is *acted on* when the robot read a code it obeys (Table 6: 1–3 set the speed, 4–7 announce
an intersection) other than the printed one: a speed code read on an intersection's barcode
leaves the robot driving through that intersection as a road, the failure of issue #27's third
run. A read of 0 (no black sample) is not acted on. The same class serves the run (its probe is
fed live) and ``analyze`` (fed from the bag); the matching happens at the end, so the order in
which reads and entries arrive does not matter.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

#: Seconds from entering a barcode to the end of its reading (the slowest read: 4 bits at the
#: lowest speed, as analyze's barcode table allows).
WINDOW = 8.0
#: The codes a robot acts on (report Table 6).
ACTED_CODES = frozenset(range(1, 8))


@dataclass
class MisreadMonitor:
    """Feed it the world's barcode entries and the controllers' reads; `summary` matches them."""

    entries: dict[str, list[tuple[float, str, int]]] = field(default_factory=dict)
    reads: dict[str, list[tuple[float, int]]] = field(default_factory=dict)

    def entered(self, robot: str, t: float, barcode: str, code: int, bits: int = 4) -> None:
        if bits > 1:  # a single bar is a mark, not a code
            self.entries.setdefault(robot, []).append((t, barcode, code))

    def read(self, robot: str, t: float, code: int) -> None:
        self.reads.setdefault(robot, []).append((t, code))

    def world_event(self, event: dict) -> None:
        """A /world/events message; only ``barcode_enter`` matters here."""
        if event.get('kind') == 'barcode_enter' and event.get('robot') and 't' in event:
            self.entered(str(event['robot']), float(event['t']), str(event.get('barcode')),
                         int(event.get('code', -1)), int(event.get('bits', 4)))

    def misreads(self) -> list[dict]:
        out = []
        for robot, reads in self.reads.items():
            entries = sorted(self.entries.get(robot, []))
            times = [e[0] for e in entries]
            used: set[int] = set()
            for t, code in sorted(reads):
                k = bisect_right(times, t + 1e-6) - 1
                if k < 0 or t - times[k] > WINDOW or k in used:
                    continue  # no barcode under it: a false trigger, not a misread
                used.add(k)
                _, barcode, printed = entries[k]
                if code != printed:
                    out.append({'robot': robot, 't': round(t, 2), 'barcode': barcode, 'printed': printed,
                                'read': code, 'acted_on': code in ACTED_CODES})
        return sorted(out, key=lambda m: (m['t'], m['robot']))

    def summary(self, limit: int = 50) -> dict:
        found = self.misreads()
        acted = [m for m in found if m['acted_on']]
        return {'reads': sum(len(r) for r in self.reads.values()), 'misreads': len(found),
                'acted_on': len(acted), 'list': acted[:limit]}
