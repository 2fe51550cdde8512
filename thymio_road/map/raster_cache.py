# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A map's rasters kept on disk between runs: built once per map and code version, then read.

Building the tiled rasters of a map (the grey, the road and barcode indices, the blind areas,
the sensors' blurred response, /map's darkness) took about half the CPU of a short run of
`final` (issue #28). They depend only on the map's geometry and on the code and libraries that
paint and blur it, so they are stored under a digest of both: the map's pieces, barcodes and
blind rectangles as their exact reprs, and the source files given plus numpy's and scipy's
versions. A file that is missing, unreadable or of another version is built again.

A raster that builds in less than MIN_BUILD_TIME is not stored (the small maps of tests); the
calibration track, built in memory at every calibrated run, is. The folder is
$THYMIO_ROAD_CACHE/rasters if set, else $XDG_CACHE_HOME/thymio_road/rasters
(~/.cache/thymio_road/rasters); files are written whole and renamed into place, and the oldest
go when the folder outgrows MAX_BYTES. $THYMIO_ROAD_RASTER_CACHE=0 turns the cache off (and
map/map_cache.py's checked maps, kept in the same folder).
"""
from __future__ import annotations

from functools import lru_cache
import hashlib
import os
from pathlib import Path
import tempfile
import time
from typing import Any, Callable

import numpy as np

from thymio_road.map.atomic import atomic_path
from thymio_road.map.tiles import Tiled

#: The folder is pruned, oldest files first, down to three quarters of this.
MAX_BYTES = 2 * 10 ** 9
#: Rasters built quicker than this (CPU seconds) are not stored.
MIN_BUILD_TIME = 0.05
_MAP_SOURCES = ('road_map.py', 'tiles.py', 'geometry.py', 'barcode.py', 'intersections.py', 'raster_cache.py')


def cache_bases() -> list[Path]:
    """The project's cache folders, the first writable one in use: $THYMIO_ROAD_CACHE, else
    $XDG_CACHE_HOME/thymio_road (~/.cache/thymio_road), else one in the temporary folder (the
    generated maps' cache uses them too).
    """
    if os.environ.get('THYMIO_ROAD_CACHE'):
        return [Path(os.environ['THYMIO_ROAD_CACHE'])]
    xdg = os.environ.get('XDG_CACHE_HOME') or str(Path.home() / '.cache')
    user = os.getuid() if hasattr(os, 'getuid') else 'user'
    return [Path(xdg) / 'thymio_road', Path(tempfile.gettempdir()) / f'thymio_road-{user}']


@lru_cache(maxsize=1)
def folder() -> Path | None:
    """The cache folder, created, or None: turned off, or nowhere writable."""
    if os.environ.get('THYMIO_ROAD_RASTER_CACHE', '1') == '0':
        return None
    for base in cache_bases():
        path = base / 'rasters'
        try:
            path.mkdir(parents=True, exist_ok=True)
            if os.access(path, os.W_OK):
                return path
        except OSError:
            continue
    return None


@lru_cache(maxsize=8)
def _code_digest(sources: tuple[str, ...]) -> bytes:
    import scipy
    digest = hashlib.sha256(f'numpy {np.__version__} scipy {scipy.__version__}'.encode())
    here = Path(__file__).resolve().parent
    for name in (*_MAP_SOURCES, *sources):
        path = here / name if '/' not in name else Path(name)
        try:
            digest.update(path.name.encode() + b'\0' + path.read_bytes())
        except OSError:
            digest.update(path.name.encode() + b'\0?')
    return digest.digest()


def map_digest(road_map: Any) -> str:
    """What the rasters of a map depend on: its sheet, roads (pieces in order, layers), barcodes
    and blind rectangles, as exact reprs.
    """
    blind = [inter.extra.get('blind', ()) for inter in road_map.intersections]
    text = repr((road_map.width, road_map.height, road_map.resolution, road_map.road_width,
                 [(r.id, r.pieces, r.closed, r.layer) for r in road_map.roads], road_map.barcodes, blind))
    return hashlib.sha256(text.encode()).hexdigest()


def cached(road_map: Any, name: str, build: Callable[[], Any], sources: tuple[str, ...] = ()) -> Any:
    """The raster `name` of the map (a Tiled or an array) from the cache, else `build()` stored
    there. `sources`: further files (paths) whose code the raster depends on.
    """
    where = folder()
    if where is None:
        return build()
    key = hashlib.sha256(_code_digest(tuple(sources)) + map_digest(road_map).encode() + name.encode())
    path = where / f'{name}-{key.hexdigest()[:24]}.npz'
    try:
        with np.load(path) as data:
            return _unpack(data)
    except (OSError, ValueError, KeyError, EOFError):
        pass
    began = time.process_time()
    value = build()
    if time.process_time() - began < MIN_BUILD_TIME:
        return value  # quicker built than read: not worth a file (the small maps of tests)
    try:
        with atomic_path(path) as tmp:
            with open(tmp, 'wb') as f:
                np.savez(f, **_pack(value))
        prune(where)
    except OSError:
        pass  # a full or read-only disk: the raster is still good
    return value


def _pack(value: Any) -> dict[str, np.ndarray]:
    if isinstance(value, Tiled):
        return {'shape': np.array(value.shape), 'directory': value.directory, 'tiles': value.tiles}
    return {'array': value}


def _unpack(data: Any) -> Any:
    if 'array' in data:
        out = data['array']
        out.setflags(write=False)
        return out
    directory, tiles = data['directory'], data['tiles']
    directory.setflags(write=False)
    tiles.setflags(write=False)
    return Tiled(tuple(int(v) for v in data['shape']), directory, tiles)


def prune(where: Path) -> None:
    """Remove the oldest files (rasters, and the checked maps of map/map_cache.py) while the
    folder holds more than MAX_BYTES.
    """
    files = []
    for path in [*where.glob('*.npz'), *where.glob('*.pickle')]:
        try:
            stat = path.stat()
        except OSError:
            continue
        files.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in files)
    if total <= MAX_BYTES:
        return
    for _, size, path in sorted(files):
        if total <= MAX_BYTES * 3 // 4:
            break
        path.unlink(missing_ok=True)
        total -= size
