# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A generated map as map-file text: the shipped maps' layout, numbers to the micrometre.

Written by hand rather than by a YAML dumper, so that the same plan always gives the same bytes
whatever PyYAML's version, and the file reads like config/maps/final.yaml. Pieces are rounded to
1 µm and 1 µ°, so a road still ends on its port within the loader's 1 mm.
"""
from __future__ import annotations

from thymio_road.generator.plan import MapPlan


def num(v: float) -> str:
    text = f'{v:.6f}'.rstrip('0').rstrip('.')
    return '0' if text in ('-0', '') else text


def _flow(d: dict) -> str:
    parts = []
    for k, v in d.items():
        if isinstance(v, bool):
            text = 'true' if v else 'false'
        elif isinstance(v, (int, float)):
            text = num(float(v)) if isinstance(v, float) else str(v)
        elif isinstance(v, list):
            text = '[' + ', '.join(num(x) if isinstance(x, float) else str(x) for x in v) + ']'
        elif isinstance(v, dict):
            text = _flow(v)
        else:
            text = str(v)
        parts.append(f'{k}: {text}')
    return '{' + ', '.join(parts) + '}'


def map_text(plan: MapPlan, name: str, size: tuple[float, float], header: list[str]) -> str:
    lines = [f'# {line}' if line else '#' for line in header]
    lines += [f'name: {name}', f'size: [{num(size[0])}, {num(size[1])}]', 'intersections:']
    # Roundabouts and crossroads first: light addressing numbers intersections in this order.
    elements = [hub.element() for hub in plan.hubs]
    elements += [{'branching': {'id': b.id, 'road': b.road_a, 'at': b.at_a, 'to_road': b.road_b, 'to_at': b.at_b,
                                'gap': b.gap}} for b in plan.branchings]
    elements += [{'location': {'id': loc.id, 'number': loc.number, 'road': loc.road, 'at': loc.at,
                               'light': loc.light}} for loc in plan.locations]
    for element in elements:
        (kind, fields), = element.items()
        lines.append(f'  - {kind}: {_flow(fields)}')
    lines.append('roads:')
    for road in plan.roads:
        lines += [f'  - id: {road.id}', f'    from: {road.origin}   # to {road.target_port}', '    pieces:']
        for p in road.path.pieces:
            if 'straight' in p:
                lines.append(f"      - straight: {num(p['straight'])}")
            else:
                arc = p['arc']
                lines.append(f"      - arc: {{radius: {num(arc['radius'])}, angle_deg: {num(arc['angle_deg'])}}}")
    lines.append('barcodes:')
    for road in plan.roads:
        for at, code, bid in sorted(road.barcodes):
            lines.append(f'  - {_flow({"id": bid, "road": road.id, "at": round(at, 6), "code": code})}')
    for lane, at, code, bid in plan.lane_codes:
        lines.append(f'  - {_flow({"id": bid, "road": lane, "at": at, "code": code})}')
    return '\n'.join(lines) + '\n'
