# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Scoring barcode reads against ground truth, from the events a run publishes.

Ground truth is the world's ``barcode_enter`` events (the reading sensor entering a barcode's
footprint); the robot's side is its ``trigger`` and ``barcode`` events. Both are on topics, so
the same scoring works on a live run and on a bag.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: A trigger belongs to a barcode pass if it comes this soon before/after the sensor enters it.
TRIGGER_BEFORE = 0.15
TRIGGER_AFTER = 0.8
#: Entering the same barcode again within this time is the sensor weaving, not a new pass.
REENTRY = 3.0


@dataclass
class Pass:
    """One robot passing over one barcode, and what it read."""

    t: float
    barcode: str
    expected: int
    triggered: bool = False
    read: int | None = None
    speed: int | None = None

    @property
    def correct(self) -> bool:
        return self.read == self.expected


@dataclass
class ReadScore:
    passes: list[Pass] = field(default_factory=list)
    false_triggers: list[float] = field(default_factory=list)

    @property
    def trigger_rate(self) -> float:
        return sum(p.triggered for p in self.passes) / len(self.passes) if self.passes else float('nan')

    @property
    def success_rate(self) -> float:
        return sum(p.correct for p in self.passes) / len(self.passes) if self.passes else float('nan')

    def as_dict(self) -> dict:
        return {'passes': len(self.passes), 'triggered': sum(p.triggered for p in self.passes),
                'correct': sum(p.correct for p in self.passes), 'false_triggers': len(self.false_triggers),
                'trigger_rate': self.trigger_rate, 'success_rate': self.success_rate}


def score(world_events: list[dict], robot_events: list[dict], robot: str,
          until: float = float('inf')) -> ReadScore:
    """Match one robot's triggers and decoded codes to the barcodes it passed (4-bit ones).

    Passes begun after `until` are left out (a run that ends mid-barcode cannot finish the read).
    """
    passes: list[Pass] = []
    last_enter: dict[str, float] = {}
    for e in world_events:
        if (e.get('kind') != 'barcode_enter' or e.get('robot') != robot or e.get('bits', 4) < 2
                or e['t'] > until):
            continue
        previous = last_enter.get(e['barcode'])
        last_enter[e['barcode']] = e['t']
        if previous is not None and e['t'] - previous < REENTRY:
            continue
        passes.append(Pass(e['t'], e['barcode'], e['code']))
    result = ReadScore(passes)
    pending: Pass | None = None
    for e in robot_events:
        kind = e.get('kind')
        if kind == 'trigger':
            pending = next((p for p in passes if not p.triggered
                            and p.t - TRIGGER_BEFORE <= e['t'] <= p.t + TRIGGER_AFTER), None)
            if pending is None:
                result.false_triggers.append(e['t'])
            else:
                pending.triggered = True
                pending.speed = e.get('speed')
        elif kind == 'barcode' and pending is not None:
            pending.read = e['code']
            pending = None
    return result
