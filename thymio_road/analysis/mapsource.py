# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Find the map a recording was made on, so that road metrics use the simulator's own raster.

In order: the map or scenario the user names; the map file the world published on
``/world/map_description``; the scenario named by ``summary.json`` beside the bag; a shipped map
whose raster equals the recorded ``/map``; and last the ``/map`` raster alone, which has no
vector roads (so no laps or throughput) and marks road pixels by their darkness.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from thymio_road.analysis.bag import Recording, sibling_summary
from thymio_road.analysis.metrics import on_road_mask
from thymio_road.map.loader import load_map, parse_map
from thymio_road.map.road_map import RoadMap
from thymio_road.map.validation import ConfigError, parse_yaml


@dataclass
class MapSource:
    """The map used for the metrics: vector roads when known, and an on-road raster."""

    road_map: RoadMap | None
    on_road: np.ndarray | None
    resolution: float
    origin: tuple[float, float]
    description: str
    notes: list[str] = field(default_factory=list)

    @property
    def grey(self) -> np.ndarray | None:
        return self.road_map.grey if self.road_map is not None else None


def occupancy(road_map: RoadMap, resolution: float | None = None) -> np.ndarray | None:
    """The /map darkness the world node publishes for a map (0 white .. 100 black) at a /map
    resolution (world parameter map_resolution); None if the map's raster cannot give it.
    """
    try:
        return road_map.occupancy(resolution)
    except ValueError:
        return None


def _from_map(road_map: RoadMap, description: str, rec: Recording, notes: list[str]) -> MapSource:
    if rec.grid is not None:
        expected = occupancy(road_map, rec.grid.resolution)
        if expected is None or rec.grid.darkness.shape != expected.shape:
            notes.append(f'{description} is {road_map.width} × {road_map.height} m but the '
                         f'recorded /map is {rec.grid.darkness.shape[1]}×{rec.grid.darkness.shape[0]} '
                         f'cells of {rec.grid.resolution} m: the recording was probably made on another map')
        else:
            diff = int(np.abs(expected.astype(int) - rec.grid.darkness.astype(int)).max())
            if diff > 1:
                notes.append(f'{description} differs from the recorded /map (up to {diff} % darkness): '
                             'the recording was probably made on another version of the map')
    return MapSource(road_map, on_road_mask(road_map), road_map.resolution, (0.0, 0.0), description, notes)


def resolve_map(rec: Recording, map_path: str | Path | None = None,
                scenario: str | None = None) -> MapSource:
    """The best map for a recording; `notes` says where it came from and any doubt about it."""
    notes: list[str] = []
    if map_path is not None:
        return _from_map(load_map(map_path), f'map file {map_path}', rec, notes)
    if scenario is not None:
        from thymio_road.scenario import load_scenario
        return _from_map(load_scenario(scenario).road_map, f'scenario {scenario}', rec, notes)
    if rec.map_description:
        try:
            # A recording is input too: the same limits as a map file (size, aliases).
            data = parse_yaml(rec.map_description, f'{rec.path}:/world/map_description', ConfigError)
            road_map = parse_map(data, f'{rec.path}:/world/map_description')
            return _from_map(road_map, 'the map published on /world/map_description', rec, notes)
        except (ConfigError, yaml.YAMLError) as exc:
            notes.append(f'/world/map_description could not be used: {exc}')
    summary = sibling_summary(rec.path)
    if summary and summary.get('scenario_file'):
        path = Path(summary['scenario_file'])
        try:
            from thymio_road.scenario import load_scenario
            road_map = load_scenario(path).road_map
            return _from_map(road_map, f'scenario {path} (from summary.json)', rec, notes)
        except (ConfigError, OSError) as exc:
            notes.append(f'summary.json names scenario {path}, which cannot be loaded: {exc}')
    if rec.grid is not None:
        shipped = _shipped_match(rec)
        if shipped is not None:
            return _from_map(shipped, f"shipped map '{shipped.name}' (its raster equals the "
                                      'recorded /map)', rec, notes)
        notes.append('no map file matches the recorded /map: road pixels are taken from its '
                     'darkness, and metrics that need the roads as lines are not computed')
        grid = rec.grid
        return MapSource(None, grid.darkness > 0, grid.resolution, grid.origin,
                         'the recorded /map raster', notes)
    notes.append('the recording has no /map and no map description; give --map or --scenario')
    return MapSource(None, None, 0.001, (0.0, 0.0), 'none', notes)


def _shipped_match(rec: Recording) -> RoadMap | None:
    from thymio_road.scenario import config_dir
    try:
        folder = config_dir() / 'maps'
    except FileNotFoundError:
        return None
    grid = rec.grid
    assert grid is not None
    for path in sorted(folder.glob('*.yaml')):
        try:
            road_map = load_map(path)
        except ConfigError:
            continue
        expected = occupancy(road_map, grid.resolution)
        if expected is None or expected.shape != grid.darkness.shape:
            continue
        if int(np.abs(expected.astype(int) - grid.darkness.astype(int)).max()) <= 1:
            return road_map
    return None
