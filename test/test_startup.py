# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Start-up (issue #28): rasters and checked maps kept on disk between runs, kernels compiled before the run."""
import io

import numpy as np
import pytest

from thymio_road.map import map_cache, raster_cache
from thymio_road.map.loader import load_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.map.road_map import MapError
from thymio_road.scenario import find_config, load_scenario, robot_specs, world_params
from thymio_road.sim import world as world_module
from thymio_road.sim.sensors import noiseless_response
from thymio_road.sim.world import World


def test_rasters_are_read_back_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path))
    monkeypatch.setattr(raster_cache, 'MIN_BUILD_TIME', 0.0)
    raster_cache.folder.cache_clear()
    try:
        path = find_config('maps', 'simple')
        first = load_map(path)
        built = [np.asarray(r) for r in (noiseless_response(first), first.road_index, first.barcode_index,
                                         first.blind_area, first.grey)] + [first.occupancy(0.005)]
        files = sorted(p.name.split('-')[0] for p in (tmp_path / 'rasters').glob('*.npz'))
        assert files == ['barcode_index', 'blind_area', 'grey', 'occupancy5', 'response', 'road_index']
        calls = []
        monkeypatch.setattr(raster_cache, '_pack', lambda value: calls.append(value))  # no more writes
        again = load_map(path)
        read = [np.asarray(r) for r in (noiseless_response(again), again.road_index, again.barcode_index,
                                        again.blind_area, again.grey)] + [again.occupancy(0.005)]
        assert not calls
        for a, b in zip(built, read):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        # Another map (or another version of the code) has another key.
        assert raster_cache.map_digest(load_map(find_config('maps', 'oval'))) != raster_cache.map_digest(again)
    finally:
        raster_cache.folder.cache_clear()


def test_checked_maps_are_read_back_and_an_edited_or_broken_file_is_checked_again(tmp_path, monkeypatch):
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path / 'cache'))
    monkeypatch.setattr(raster_cache, 'MIN_BUILD_TIME', 0.0)
    raster_cache.folder.cache_clear()
    try:
        path = tmp_path / 'simple.yaml'
        path.write_text(find_config('maps', 'simple').read_text())
        first = map_cache.load_checked_map(path)
        assert 'road_graph' in first.derived  # built by the checks, kept with the map
        loads = []
        monkeypatch.setattr(map_cache, 'load_map', lambda p: loads.append(p) or load_map(p))
        again = map_cache.load_checked_map(path)
        assert not loads and again is not first
        assert raster_cache.map_digest(again) == raster_cache.map_digest(first) and again.source == first.source
        assert RoadGraph.build(again) is again.derived['road_graph']
        path.write_text(path.read_text().replace('name: simple', 'name: edited'))
        assert map_cache.load_checked_map(path).name == 'edited' and loads == [path]
        path.write_text(path.read_text() + '\nno_such_key: 1\n')
        for _ in range(2):  # a map that fails its checks is not stored: the error each time
            with pytest.raises(MapError):
                map_cache.load_checked_map(path)
        assert len(loads) == 3
    finally:
        raster_cache.folder.cache_clear()


def test_warming_up_says_when_it_compiles_and_leaves_the_world_as_it_was(tmp_path, monkeypatch):
    scenario = load_scenario('oval')
    world = World(scenario.road_map, robot_specs(scenario), world_params(scenario), scenario.seed)
    before = (world.poses.copy(), world.odom.copy(), world.clock.copy(), world.ground_noise.cursor.copy())
    marker = tmp_path / 'compiled'
    monkeypatch.setattr(world_module, '_warm_marker', lambda: marker)
    said = io.StringIO()
    world_module.warm_kernels(world, said)
    assert 'compiling the simulator' in said.getvalue() and 'are compiled' in said.getvalue()
    assert marker.exists()
    said = io.StringIO()
    world_module.warm_kernels(world, said)
    assert said.getvalue() == ''  # compiled once: loaded silently
    after = (world.poses, world.odom, world.clock, world.ground_noise.cursor)
    for a, b in zip(before, after):
        assert np.array_equal(a, b)
