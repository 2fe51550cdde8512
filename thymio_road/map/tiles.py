# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Rasters stored as tiles where there is ink: memory follows the length of road, not the floor.

A 1 mm raster of a 20 × 20 m floor is 4·10⁸ pixels, most of them bare paper. A :class:`Tiled`
raster keeps a directory of TILE × TILE pixel tiles: entry 0 is the one tile of the fill value
(paper, no road, no barcode), shared by every place without ink; the others hold their own
pixels. A look-up is ``tiles[directory[r >> TILE_SHIFT, c >> TILE_SHIFT], r & TILE_MASK,
c & TILE_MASK]``, which the compiled ground sensing does too (sim/ground.py).

The class reads like the dense array it replaces for the analysis and the tests: indexing by
points or slices, numpy's ufuncs (a comparison or arithmetic with a number, or with another
tiled raster, stays tiled), and ``np.asarray`` for the dense array where one is wanted.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

#: Tiles of 32 × 32 pixels (3.2 cm at 1 mm): a road's band with the sensors' blur around it
#: fills a good share of the tiles it crosses (86 000 pixels a metre of road, 86 m² of floor).
TILE_SHIFT = 5
TILE = 1 << TILE_SHIFT
TILE_MASK = TILE - 1
#: Tiles rendered at once (BLOCK × BLOCK of them): fewer, larger numpy calls.
BLOCK = 4


class Tiled(NDArrayOperatorsMixin):
    """A 2-D raster of `shape` stored as tiles: `directory` (int32, one entry per TILE × TILE
    block of pixels) indexes `tiles` (k × TILE × TILE), whose tile 0 is the fill value.
    """

    def __init__(self, shape: tuple[int, int], directory: np.ndarray, tiles: np.ndarray) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.directory = directory
        self.tiles = tiles

    ndim = 2

    @property
    def dtype(self) -> np.dtype:
        return self.tiles.dtype

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def fill(self) -> Any:
        return self.tiles[0, 0, 0]

    @property
    def nbytes(self) -> int:
        return self.directory.nbytes + self.tiles.nbytes

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f'Tiled(shape={self.shape}, dtype={self.dtype}, tiles={len(self.tiles) - 1})'

    @classmethod
    def build(cls, shape: tuple[int, int], fill: Any, dtype: Any, tiles: Any,
              render: Callable[[int, int, int, int], np.ndarray]) -> 'Tiled':
        """Render the tiles (rows of tile row and column) that may hold other values than `fill` with
        ``render(r0, r1, c0, c1)`` (the raster's pixels there), and keep those that do.
        Everywhere else is `fill`. Tiles are rendered a block (BLOCK × BLOCK tiles) at a time:
        the bounding box of a block's tiles in one call.
        """
        rows, cols = shape
        directory = np.zeros((-(-rows // TILE), -(-cols // TILE)), dtype=np.int32)
        wanted = unique_cells(tiles)
        wanted = wanted[(wanted >= 0).all(axis=1) & (wanted < directory.shape).all(axis=1)]
        block = wanted // BLOCK
        order = np.lexsort((block[:, 1], block[:, 0]))
        wanted, block = wanted[order], block[order]
        # Room for every wanted tile (a tile near ink mostly has some): no list of tiles to stack
        # at the end, which held the raster twice.
        tiles_ = np.empty((len(wanted) + 1, TILE, TILE), dtype=dtype)
        tiles_[0] = fill
        kept = 1
        starts = np.flatnonzero(np.r_[True, (block[1:] != block[:-1]).any(axis=1)]) if len(wanted) else []
        for lo, hi in zip(starts, [*starts[1:], len(wanted)]):
            (t0, u0), (t1, u1) = wanted[lo:hi].min(axis=0), wanted[lo:hi].max(axis=0) + 1
            r0, c0 = int(t0) * TILE, int(u0) * TILE
            r1, c1 = min(int(t1) * TILE, rows), min(int(u1) * TILE, cols)
            values = render(r0, r1, c0, c1)
            if (values == fill).all():
                continue
            padded = np.full((int(t1 - t0) * TILE, int(u1 - u0) * TILE), fill, dtype=dtype)
            padded[:r1 - r0, :c1 - c0] = values
            grid = padded.reshape(int(t1 - t0), TILE, int(u1 - u0), TILE).swapaxes(1, 2)
            inked = np.nonzero((grid != fill).any(axis=(2, 3)))
            count = len(inked[0])
            if kept + count > len(tiles_):  # ink in a tile of the box that was not wanted
                tiles_ = np.concatenate([tiles_, np.empty((kept + count, TILE, TILE), dtype=dtype)])
            directory[t0 + inked[0], u0 + inked[1]] = np.arange(kept, kept + count)
            tiles_[kept:kept + count] = grid[inked]
            kept += count
        tiles_ = tiles_[:kept] if kept > 0.75 * len(tiles_) else tiles_[:kept].copy()
        tiles_.setflags(write=False)
        directory.setflags(write=False)
        return cls(shape, directory, tiles_)

    @classmethod
    def from_dense(cls, dense: np.ndarray, fill: Any) -> 'Tiled':
        """A tiled copy of a dense raster (tests, small rasters)."""
        rows, cols = dense.shape
        tiles = [(r, c) for r in range(-(-rows // TILE)) for c in range(-(-cols // TILE))]
        return cls.build(dense.shape, fill, dense.dtype, tiles, lambda r0, r1, c0, c1: dense[r0:r1, c0:c1])

    # --- reading -----------------------------------------------------------------------------

    def at(self, r: Any, c: Any) -> Any:
        """Values at pixel rows and columns (arrays broadcast; no bounds check)."""
        r, c = np.asarray(r), np.asarray(c)
        return self.tiles[self.directory[r >> TILE_SHIFT, c >> TILE_SHIFT], r & TILE_MASK, c & TILE_MASK]

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, tuple):
            key = (key, slice(None))
        if len(key) != 2 or any(k is Ellipsis or k is None for k in key):
            return np.asarray(self)[key]
        parts, scalar = [], []
        for k, n in zip(key, self.shape):
            if isinstance(k, slice):
                parts.append(np.arange(*k.indices(n)))
                scalar.append(False)
                continue
            k = np.asarray(k)
            if k.dtype == bool or not np.issubdtype(k.dtype, np.integer):
                return np.asarray(self)[key]
            if ((k < -n) | (k >= n)).any():
                raise IndexError(f'index out of bounds for a raster of shape {self.shape}')
            parts.append(np.where(k < 0, k + n, k))
            scalar.append(None)  # an index array (or an int)
        r, c = parts
        if all(s is None for s in scalar):
            return self.at(r, c)[()] if r.ndim == c.ndim == 0 else self.at(r, c)
        # A slice with an index: numpy's outer indexing (rows × columns), int dimensions dropped.
        if r.ndim > 1 or c.ndim > 1:
            return np.asarray(self)[key]
        out = self.at(r.reshape(-1, 1), c.reshape(1, -1))
        if scalar[0] is None and r.ndim == 0:
            return out[0]
        if scalar[1] is None and c.ndim == 0:
            return out[:, 0]
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The dense raster (the whole sheet's pixels: for small maps, tests and the analysis)."""
        tr, tc = self.directory.shape
        dense = self.tiles[self.directory].transpose(0, 2, 1, 3).reshape(tr * TILE, tc * TILE)
        dense = dense[:self.shape[0], :self.shape[1]]
        return dense.astype(dtype) if dtype is not None else np.ascontiguousarray(dense)

    def __getattr__(self, name: str) -> Any:
        # ndarray's methods (sum, any, astype...) on the dense raster; never for private names,
        # which copy and pickle look up before the instance has its attributes.
        if name.startswith('_') or name in ('directory', 'tiles', 'shape'):
            raise AttributeError(name)
        return getattr(np.asarray(self), name)

    # --- numpy's ufuncs ----------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        tiled = [x for x in inputs if isinstance(x, Tiled)]
        plain = method == '__call__' and not kwargs and ufunc.nout == 1
        if plain and all(isinstance(x, Tiled) or np.ndim(x) == 0 for x in inputs) and \
                all(t.shape == self.shape for t in tiled):
            directory = tiled[0].directory
            if any(t.directory is not directory and not np.array_equal(t.directory, directory) for t in tiled):
                return self._union(ufunc, inputs)
            return Tiled(self.shape, directory, ufunc(*(x.tiles if isinstance(x, Tiled) else x for x in inputs)))
        dense = [np.asarray(x) if isinstance(x, Tiled) else x for x in inputs]
        return getattr(ufunc, method)(*dense, **kwargs)

    def _union(self, ufunc: np.ufunc, inputs: tuple) -> 'Tiled':
        """An elementwise function of rasters tiled differently: on the tiles that any has."""
        tiled = [x for x in inputs if isinstance(x, Tiled)]
        has = np.zeros(self.directory.shape, dtype=bool)
        for t in tiled:
            has |= t.directory > 0
        where = np.nonzero(has)
        directory = np.zeros(self.directory.shape, dtype=np.int32)
        directory[where] = np.arange(1, len(where[0]) + 1)
        args = []
        for x in inputs:
            if isinstance(x, Tiled):
                args.append(x.tiles[np.concatenate([[0], x.directory[where]])])
            else:
                args.append(x)
        return Tiled(self.shape, directory, ufunc(*args))


def unique_cells(cells: Any) -> np.ndarray:
    """Cells (pairs of row and column: an array or any iterable) as a sorted int64 array (n×2) without repeats."""
    cells = np.asarray(list(cells) if not isinstance(cells, np.ndarray) else cells, dtype=np.int64).reshape(-1, 2)
    if not len(cells):
        return cells
    low = cells.min(axis=0)
    width = int(cells[:, 1].max() - low[1]) + 1
    keys = np.unique((cells[:, 0] - low[0]) * width + (cells[:, 1] - low[1]))
    return np.column_stack([keys // width + low[0], keys % width + low[1]])


def cells_near(points: np.ndarray, pad: float, resolution: float, cell: int = TILE) -> np.ndarray:
    """The cells of `cell` pixels (tiles by default) within `pad` metres (as a square) of any
    of the points (n×2+): rows of (row, column), sorted.
    """
    if not len(points):
        return np.zeros((0, 2), dtype=np.int64)
    side = cell * resolution
    lo = np.floor((points[:, :2] - pad) / side).astype(np.int64)
    hi = np.floor((points[:, :2] + pad) / side).astype(np.int64)
    found = []
    for dr in range(int((hi - lo)[:, 1].max()) + 1):
        for dc in range(int((hi - lo)[:, 0].max()) + 1):
            ok = (lo[:, 1] + dr <= hi[:, 1]) & (lo[:, 0] + dc <= hi[:, 0])
            found.append(np.column_stack([lo[ok, 1] + dr, lo[ok, 0] + dc]))
    return unique_cells(np.concatenate(found))
