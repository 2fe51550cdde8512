# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Where on a road robots may start: not on a barcode or mark, and not inside an intersection.

A robot put down on a barcode misreads it (it starts reading mid-code), and one put down inside an
intersection has not read its code, so it drives the intersection blind (issue #13: with the even
spacing, a robot started on L3's barcode, misread it and drove the siding the wrong way). How far
apart robots must start is the scenario's business (it knows the robot's sensors).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: A start keeps this far behind a barcode's first bit (the sensors lead the centre by 7.2 cm)...
BEFORE = 0.10
#: ...and this far past a barcode's last bit or an intersection's end.
AFTER = 0.05


@dataclass(frozen=True)
class Span:
    start: float
    end: float
    what: str


def forbidden(road_map: Any, road_id: str) -> list[Span]:
    """The arc-length spans of `road_id` where no robot may start, sorted."""
    spans = []
    road = road_map.road(road_id)
    for barcode in road_map.barcodes:
        if barcode.road == road_id:
            spans.append(Span(barcode.at - BEFORE, barcode.end + AFTER,
                              f"{'barcode' if barcode.bits > 1 else 'mark'} '{barcode.id}'"))
    for inter in road_map.intersections:
        marks = [b for b in road_map.barcodes if b.road == road_id and b.id.startswith(f'{inter.id}.')]
        lo = [b.at for b in marks]
        hi = [b.end for b in marks]
        if inter.extra.get('road') == road_id and 'split_at' in inter.extra:
            lo.append(inter.extra['split_at'])
            hi.append(inter.extra['merge_at'])
        if lo:
            # From the code that announces it (Table 6: 4-7), the last such barcode before it on this
            # road: a robot started between the code and the intersection would drive it unannounced.
            codes = [b.at for b in road_map.barcodes if b.road == road_id and b.bits > 1 and b.code >= 4
                     and b.end <= min(lo) and min(lo) - b.end < 1.0]
            first = max(codes) if codes else min(lo)
            spans.append(Span(first - BEFORE, max(hi) + AFTER, f"intersection '{inter.id}' ({inter.kind})"))
    if road.closed:
        # Spans across the start of a closed road also cover its end, and the other way round.
        spans += [Span(s.start + road.length, s.end + road.length, s.what) for s in spans if s.start < 0]
        spans += [Span(s.start - road.length, s.end - road.length, s.what) for s in spans if s.end > road.length]
    return sorted(spans, key=lambda s: s.start)


def owner(road_map: Any, road_id: str) -> Any | None:
    """The intersection a road belongs to (its ring, circle, lanes, sidings, links), or None."""
    prefix = road_id.split('.', 1)[0]
    return next((i for i in road_map.intersections if i.id == prefix and prefix != road_id), None)


def blocked_by(spans: list[Span], s: float) -> Span | None:
    return next((span for span in spans if span.start <= s <= span.end), None)


def free_from(spans: list[Span], s: float) -> float:
    """The first arc length at or after `s` outside every span."""
    moved = True
    while moved:
        moved = False
        for span in spans:
            if span.start <= s <= span.end:
                s, moved = span.end + 1e-6, True
    return s
