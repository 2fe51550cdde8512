# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Analysis of recorded runs: read a bag, compute the metrics, write a report.

``analyze_bag(bag, out)`` is what ``thymio-road analyze`` runs; the pieces are :mod:`.bag`
(reading), :mod:`.mapsource` (which map), :mod:`.metrics` (pure numpy), :mod:`.core` (the
metrics of a recording, and what could not be computed) and :mod:`.report` (HTML, CSV, JSON, PNG);
:mod:`.traffic` holds the traffic measures, :mod:`.render` and :mod:`.figures` the pictures.

Imports ``scenario``, ``sim`` and ``map``; never the nodes or a runtime.
"""
from __future__ import annotations

from pathlib import Path

from thymio_road.analysis.bag import BagError, read_recording, Recording
from thymio_road.analysis.core import Analysis, analyze, Options
from thymio_road.analysis.mapsource import MapSource, resolve_map

__all__ = ['Analysis', 'BagError', 'MapSource', 'Options', 'Recording', 'analyze', 'analyze_bag',
           'read_recording', 'resolve_map']


def analyze_bag(bag: str | Path, out: str | Path | None = None, *, map_path: str | Path | None = None,
                scenario: str | None = None, options: Options | None = None
                ) -> tuple[Analysis, dict[str, Path]]:
    """Read a recording, compute its metrics and (when `out` is given) write the report there."""
    rec = read_recording(bag)
    source = resolve_map(rec, map_path, scenario)
    result = analyze(rec, source, options)
    files: dict[str, Path] = {}
    if out is not None:
        from thymio_road.analysis.report import write_report
        files = write_report(result, rec, source, Path(out))
    return result, files
