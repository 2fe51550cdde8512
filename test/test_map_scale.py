# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Large maps (issue #28): the loader's checks and the rasters grow with the length of road.

The tiled rasters must hold exactly the whole sheet's values (painted here the way the loader
painted them before: every piece over the whole sheet), the grid hash's crossing check must
refuse exactly what comparing every pair of samples refused, and a 300 m serpentine on a
9.9 × 9.9 m floor must load, rasters included, under a 3 GB address-space limit.
"""
import os
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest
import yaml

from benchmarks.bench_map_scale import serpentine
from thymio_road.map.checks import check_crossings
from thymio_road.map.loader import load_map, parse_map
from thymio_road.map.road_map import MapError
from thymio_road.map.tiles import TILE, Tiled
from thymio_road.scenario import find_config

ROOT = Path(__file__).resolve().parent.parent


def _whole_sheet(road_map):
    """Grey and road index painted piece by piece over the whole sheet (the former raster)."""
    grey = np.ones(road_map.shape, dtype=np.float32)
    index = np.full(road_map.shape, -1, dtype=road_map.road_index.dtype)
    res, width = road_map.resolution, road_map.road_width
    for k, piece, (r0, r1, c0, c1) in road_map._pieces_in_drawing_order:
        if c0 >= c1 or r0 >= r1:
            continue
        gx, gy = np.meshgrid((np.arange(c0, c1) + 0.5) * res, (np.arange(r0, r1) + 0.5) * res)
        s, u = piece.local(gx, gy)
        mask = (s >= -res / 2) & (s <= piece.length + res / 2) & (np.abs(u) <= width / 2)
        grey[r0:r1, c0:c1][mask] = (0.5 + u / width)[mask]
        index[r0:r1, c0:c1][mask] = k
    codes = np.full(road_map.shape, -1, dtype=road_map.barcode_index.dtype)
    for k, rows, cols, black, _ in road_map._barcode_paint:
        grey[rows, cols] = np.where(black, 0.0, 1.0)
        codes[rows, cols] = k
    return grey, index, codes


@pytest.mark.parametrize('name', ['oval', 'simple', 'final', 'generated:2'])
def test_tiled_rasters_hold_the_whole_sheets_values(name):
    road_map = load_map(find_config('maps', name))
    grey, index, codes = _whole_sheet(road_map)
    assert np.array_equal(np.asarray(road_map.grey), grey)
    assert np.array_equal(np.asarray(road_map.road_index), index)
    assert np.array_equal(np.asarray(road_map.barcode_index), codes)
    # Only tiles with ink are stored: far less than the sheet.
    assert road_map.road_index.tiles.size < 0.5 * index.size


def test_a_tiled_raster_reads_like_the_dense_array():
    rng = np.random.default_rng(3)
    dense = np.full((100, 141), -1, dtype=np.int16)
    dense[10:40, 20:90] = rng.integers(0, 5, (30, 70))
    dense[95, 140] = 7
    tiled = Tiled.from_dense(dense, -1)
    assert tiled.shape == dense.shape and tiled.dtype == dense.dtype
    assert len(tiled.tiles) - 1 == 7  # 2 rows × 3 columns of tiles with values, and the corner's
    assert np.array_equal(np.asarray(tiled), dense)
    r, c = rng.integers(0, 100, 50), rng.integers(0, 141, 50)
    assert np.array_equal(tiled[r, c], dense[r, c])
    assert tiled[95, 140] == 7 and tiled[-5, -1] == 7
    for key in [(slice(None), 30), (12, slice(None)), (slice(5, 60, 3), slice(None, None, 7)), (slice(90, None),)]:
        assert np.array_equal(tiled[key], dense[key]), key
    assert np.array_equal(np.asarray(tiled >= 0), dense >= 0)  # ufuncs stay tiled
    assert isinstance(tiled >= 0, Tiled) and isinstance((tiled >= 0) | (tiled == 7), Tiled)
    other = Tiled.from_dense(np.where(dense == 2, 1, 0).astype(np.int16), 0)
    assert np.array_equal(np.asarray(tiled + other), dense + np.where(dense == 2, 1, 0))
    assert (tiled == 3).sum() == (dense == 3).sum()
    with pytest.raises(IndexError):
        tiled[100, 0]
    assert TILE == 32


def _all_pairs_crossings(road_map, owners, step=0.005):
    """The former check: every pair of 5 mm samples of every pair of roads (small maps only)."""
    width = road_map.road_width
    samples = [(np.linspace(0.0, road.length, len(p)), p[:, :2]) for road in road_map.roads
               for p in (road.sample(step),)]
    for a, road_a in enumerate(road_map.roads):
        for b in range(a, len(road_map.roads)):
            road_b = road_map.roads[b]
            if a != b and owners.get(road_a.id) is not None and owners.get(road_a.id) == owners.get(road_b.id):
                continue
            (sa, pa), (sb, pb) = samples[a], samples[b]
            close = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1]) < width
            if a == b:
                gap = np.abs(sa[:, None] - sb[None, :])
                if road_a.closed:
                    gap = np.minimum(gap, road_a.length - gap)
                close &= gap > 3 * width
            rows, cols = np.nonzero(close)
            breaks = np.nonzero(np.diff(rows) > 2)[0] + 1
            for run_rows, run_cols in zip(np.split(rows, breaks), np.split(cols, breaks)):
                if not len(run_rows):
                    continue
                ends = [(sa[run_rows], road_a), (sb[run_cols], road_b)]
                if a != b and any(not road.closed and (s.min() <= 2 * width or s.max() >= road.length - 2 * width)
                                  for s, road in ends):
                    continue
                x, y = pa[run_rows[len(run_rows) // 2]]
                return a, b, round(float(x), 3), round(float(y), 3)
    return None


@pytest.mark.slow
def test_the_crossing_check_refuses_what_comparing_all_pairs_refused(monkeypatch):
    """Random extra roads on the shipped maps: the same verdict and the same place."""
    import thymio_road.map.loader as loader
    base = yaml.safe_load((ROOT / 'config/maps/simple.yaml').read_text())
    rng = np.random.default_rng(7)
    seen = []
    monkeypatch.setattr(loader, 'check_crossings', lambda m, owners: seen.append((m, owners)))
    verdicts = []
    for trial in range(30):
        data = dict(base, roads=list(base['roads']))
        w, h = data['size']
        for k in range(int(rng.integers(1, 3))):
            data['roads'].append({'id': f'extra{k}', 'start': [float(rng.uniform(0.3, w - 0.3)),
                                                               float(rng.uniform(0.3, h - 0.3)),
                                                               float(rng.uniform(0, 360))],
                                  'pieces': [{'straight': float(rng.uniform(0.05, 0.5))},
                                             {'arc': {'radius': float(rng.uniform(0.1, 0.25)),
                                                      'angle_deg': float(rng.choice([-1, 1]) * rng.uniform(30, 340))}},
                                             {'straight': float(rng.uniform(0.05, 0.5))}]})
        try:
            parse_map(data, 'inline')
        except MapError:
            pass
        if not seen:
            continue
        road_map, owners = seen.pop()
        expected = _all_pairs_crossings(road_map, owners)
        if expected is None:
            check_crossings(road_map, owners)
        else:
            a, b, x, y = expected
            with pytest.raises(MapError, match=rf'near \({x:.3f}, {y:.3f}\) m') as info:
                check_crossings(road_map, owners)
            assert f"'{road_map.roads[a].id}'" in str(info.value) and f"'{road_map.roads[b].id}'" in str(info.value)
        verdicts.append(expected is None)
    assert len(verdicts) >= 15 and 0 < sum(verdicts) < len(verdicts)  # both kinds were tried


def test_the_serpentine_has_its_length_and_loads():
    data = serpentine(30.0, 4.0)
    road_map = parse_map(data, 'inline')
    assert road_map.roads[0].length == pytest.approx(30.0, abs=1e-6)
    assert road_map.roads[0].closed


LOAD_UNDER_LIMIT = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 * 2 ** 30, 3 * 2 ** 30))
from thymio_road.map.loader import load_map
from thymio_road.sim.sensors import noiseless_response
m = load_map(sys.argv[1])
rasters = [noiseless_response(m), m.road_index, m.blind_area, m.barcode_index]
# VmHWM, not ru_maxrss: ru_maxrss survives exec, so a child of a large pytest process reports the parent's peak.
hwm_kb = int(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))
print(round(sum(r.length for r in m.roads)), sum(r.nbytes for r in rasters) // 2 ** 20, hwm_kb // 1024)
"""


@pytest.mark.slow
def test_a_300_m_serpentine_loads_under_3_gb(tmp_path):
    """The issue's map: 32 lanes 30 cm apart, 0.15 m turns, 9.9 × 9.9 m. Comparing every pair of
    samples needed about 27 GB; loading and the world's rasters now take a few hundred MB (built:
    the raster cache is off).
    """
    path = tmp_path / 'serpentine.yaml'
    data = serpentine(300.0, 9.9)
    assert sum(1 for p in data['roads'][0]['pieces'] if 'straight' in p) - 1 == 32  # 32 lanes, a return leg
    path.write_text(yaml.safe_dump(data))
    out = subprocess.run([sys.executable, '-c', LOAD_UNDER_LIMIT, str(path)], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT), 'THYMIO_ROAD_RASTER_CACHE': '0'})
    assert out.returncode == 0, out.stderr[-2000:]
    length, raster_mb, peak_mb = map(int, out.stdout.split())
    assert length == 300 and raster_mb < 300 and peak_mb < 1000
