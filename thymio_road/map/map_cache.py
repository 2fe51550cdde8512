# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Checked maps kept on disk between runs: a map file is parsed and checked once per content and code.

Loading `final` (parsing it, building its pieces, the crossing, barcode, turn and road-graph
checks) took 0.3 s of CPU at every run, a tenth of a 1 s run (issue #28). The loaded
:class:`RoadMap` depends only on the file's bytes and path and on the map package's code, so it
is kept, pickled, under a digest of them (with Python's and numpy's versions) in the raster
cache's folder, under its rules (map/raster_cache.py: the same switch turns both off, the same
pruning). A map that fails a check is never stored, so its error is given every time; one that
loads in less than raster_cache.MIN_BUILD_TIME is not worth a file.
"""
from __future__ import annotations

from functools import lru_cache
import hashlib
from pathlib import Path
import pickle
import sys
import time

import numpy as np

from thymio_road.map import raster_cache
from thymio_road.map.atomic import atomic_path
from thymio_road.map.loader import load_map
from thymio_road.map.road_map import RoadMap

_CODE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def _code_digest() -> bytes:
    """Python's and numpy's versions and every file of the map package (parsing and checks)."""
    digest = hashlib.sha256(f'python {sys.version} numpy {np.__version__}'.encode())
    for path in sorted(_CODE.glob('*.py')):
        digest.update(path.name.encode() + b'\0' + path.read_bytes())
    return digest.digest()


def load_checked_map(path: str | Path) -> RoadMap:
    """loader.load_map(path), from the cache when this file was loaded before by the same code."""
    where = raster_cache.folder()
    path = Path(path)
    if where is None:
        return load_map(path)
    try:
        content = path.read_bytes()
    except OSError:
        return load_map(path)  # which says what is wrong with the file
    key = hashlib.sha256(_code_digest() + str(path).encode() + b'\0' + content).hexdigest()
    stored = where / f'map-{key[:24]}.pickle'
    try:
        with open(stored, 'rb') as f:
            road_map = pickle.load(f)
        if isinstance(road_map, RoadMap):
            return road_map
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
        pass
    began = time.process_time()
    road_map = load_map(path)
    if time.process_time() - began < raster_cache.MIN_BUILD_TIME:
        return road_map
    try:
        with atomic_path(stored) as tmp:
            with open(tmp, 'wb') as f:
                pickle.dump(road_map, f, protocol=pickle.HIGHEST_PROTOCOL)
        raster_cache.prune(where)
    except OSError:
        pass  # a full or read-only disk: the map is still good
    return road_map
