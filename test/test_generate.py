# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Generated road maps (issue #27): the same seed gives the same bytes; every map loads with all the
map checks, is strongly connected, fits its size, prints, comes with a traffic scenario, is named
generated:N wherever a shipped map is; and one robot drives its passages correctly.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from thymio_road.cli.main import main
from thymio_road.experiments import generated_passages as gp
from thymio_road.generator import names
from thymio_road.generator.generate import generate_map, GeneratorError, SIZES
from thymio_road.map.connectivity import components
from thymio_road.map.loader import load_map
from thymio_road.map.road_graph import RoadGraph
from thymio_road.scenario import config_dir, find_config, load_scenario, road_capacity, ScenarioError

#: Development seeds (1-200; seeds from 1000 on are kept for the final evaluation).
SAMPLE = tuple(range(1, 7))
ALL = tuple(range(1, 201))
#: Maps a robot drives in the default suite (about 8 s each), and how long.
DRIVEN = (1, 2, 3)


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    """One cache of generated files per test session, never the user's."""
    folder = tmp_path_factory.getbasetemp() / 'generated-cache'
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(folder))
    return folder


def _valid(seed: int, size: str, tmp_path: Path) -> Counter:
    """Load the generated text as a file with every map check; return what the map holds."""
    made = generate_map(seed, size)
    path = tmp_path / f'{made.name}.yaml'
    path.write_text(made.text)
    road_map = load_map(path)
    assert road_map.width <= SIZES[size][0] and road_map.height <= SIZES[size][1]
    graph = RoadGraph.build(road_map)
    assert len(components(graph)) == 1, f'generated:{seed}:{size} is not strongly connected'
    kinds = Counter(i.kind for i in road_map.intersections)
    kinds.update(f"roundabout {len(i.extra['arms'])} arms" for i in road_map.intersections if i.kind == 'roundabout')
    kinds.update('location with a light' for i in road_map.intersections
                 if i.kind == 'location' and i.extra.get('lights'))
    kinds.update(r.id.rsplit('_', 1)[-1] for r in road_map.roads if '.' not in r.id)
    kinds.update(f'code {b.code}' for b in road_map.barcodes if b.bits > 1 and not b.road.startswith('L'))
    return kinds


def test_the_same_seed_gives_the_same_bytes():
    first, again, other = generate_map(17), generate_map(17), generate_map(18)
    assert first.text == again.text
    assert first.text != other.text
    assert names.files(17, 'small', config_dir(), road_capacity).map.read_text() == first.text


def test_a_sample_of_seeds_gives_valid_strongly_connected_maps(tmp_path):
    seen = Counter()
    for seed in SAMPLE:
        seen += _valid(seed, 'small', tmp_path)
    seen += _valid(1, 'medium', tmp_path)
    seen += _valid(1, 'large', tmp_path)
    assert {'roundabout', 'crossroad', 'location', 'balloon', 'code 7', 'code 5'} <= set(seen)


@pytest.mark.slow
def test_two_hundred_seeds_give_valid_strongly_connected_maps_of_every_kind(tmp_path):
    seen = Counter()
    for seed in ALL:
        seen += _valid(seed, 'small', tmp_path)
    for seed in range(1, 21):
        seen += _valid(seed, 'medium', tmp_path)
        seen += _valid(seed, 'large', tmp_path)
    pieces = {'roundabout 2 arms', 'roundabout 3 arms', 'roundabout 4 arms', 'crossroad', 'branching', 'location',
              'location with a light', 'balloon', 'inner', 'outer', 'loop', 'code 1', 'code 2', 'code 4', 'code 5',
              'code 6', 'code 7'}
    assert pieces <= set(seen), pieces - set(seen)
    assert seen['location'] > seen['location with a light'] > 0


def test_bad_requests_are_refused_with_what_is_allowed():
    for seed, size, words in ((-1, 'small', '0..'), ('3', 'small', 'integer'), (3, 'huge', 'small, medium, large')):
        with pytest.raises(GeneratorError, match=words):
            generate_map(seed, size)
    for name in ('generated:', 'generated:x', 'generated:-1', 'generated:3:huge', 'generated:3:'):
        with pytest.raises(GeneratorError, match='generated:N or generated:N:SIZE'):
            names.parse(name)


def test_names_resolve_wherever_a_shipped_name_does():
    assert names.parse('generated:7') == (7, 'small') and names.parse('generated:7:medium') == (7, 'medium')
    assert find_config('maps', 'generated:7').read_text() == generate_map(7).text
    assert find_config('maps', 'generated:7:medium') != find_config('maps', 'generated:7')
    scenario = load_scenario('generated:7', robots=1, seed=2, duration=1800)
    assert scenario.road_map.name == 'generated_7' and scenario.duration == 1800 and scenario.seed == 2
    assert scenario.lights, 'every generated map has a light place, where the traffic scenario puts a light'
    place = yaml.safe_load(find_config('scenarios', 'generated:7').read_text())['robots']
    try:
        crowd = load_scenario('generated:7', robots=40)
    except ScenarioError as exc:  # more than its longest road holds: the loader says how many fit
        assert f"road '{place['road']}'" in str(exc) and 'at most' in str(exc)
    else:
        assert len(crowd.robots) == 40


def test_a_fresh_cache_is_filled_from_the_name_alone(tmp_path, monkeypatch):
    """What a sweep's worker process does: it gets only the name."""
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path))
    path = names.resolve('scenarios', 'generated:5', config_dir(), road_capacity)
    assert path.is_relative_to(tmp_path) and path.is_file()
    assert names.resolve('maps', 'generated:5', config_dir(), road_capacity).read_text() == generate_map(5).text
    assert load_scenario(str(path), robots=1).road_map.name == 'generated_5'


def test_the_traffic_scenario_has_final_traffic_settings():
    shipped = yaml.safe_load((config_dir() / 'scenarios' / 'final_traffic.yaml').read_text())
    for seed in (2, 6):
        data = yaml.safe_load(find_config('scenarios', f'generated:{seed}').read_text())
        assert data['controller'] == shipped['controller'] and data['ir'] == shipped['ir']
        assert data['lights'] == shipped['lights'] and data['lights']['at'] == 'all'
        assert data['robots']['calibrate'] is True and 1 <= data['robots']['count'] <= 10


def test_a_map_whose_longest_road_holds_fewer_than_15_spreads_its_traffic_over_every_road(tmp_path):
    """The traffic tables run 15 robots on every generated map (generated:7056's longest road
    held 14, and `--robots 15` was refused for the whole table).
    """
    from thymio_road.generator.scenarios import SPREAD_BELOW, traffic_text
    made = generate_map(7)

    def short(road_map, road_id, start=0.0, most=64):  # every road holds at most 12 from `start`
        return min(road_capacity(road_map, road_id, start, most), SPREAD_BELOW - 3)

    text, count = traffic_text(made.road_map, 'g7', 'g7.yaml', config_dir(), short)
    assert count == 10 and yaml.safe_load(text)['robots']['road'] == 'all' and 'spread' in text
    (tmp_path / 'g7.yaml').write_text(made.text)
    (tmp_path / 'g7_traffic.yaml').write_text(text)
    crowd = load_scenario(str(tmp_path / 'g7_traffic.yaml'), robots=SPREAD_BELOW)
    assert len(crowd.robots) == SPREAD_BELOW and len({r.road for r in crowd.robots}) > 1
    text, _ = traffic_text(made.road_map, 'g7', 'g7.yaml', config_dir(), road_capacity)
    assert yaml.safe_load(text)['robots']['road'] != 'all', 'a road that holds 15 keeps them together'


def test_cli_writes_the_map_and_its_scenario(tmp_path, capsys):
    assert main(['map', 'generate', '--seed', '3', '--out', str(tmp_path)]) == 0
    out = capsys.readouterr().out
    map_file, scenario_file = tmp_path / 'generated_3.yaml', tmp_path / 'generated_3_traffic.yaml'
    assert f'map: {map_file}' in out and f'scenario: {scenario_file}' in out
    assert map_file.read_text() == generate_map(3).text
    scenario = load_scenario(str(scenario_file), robots=1)
    assert Path(scenario.road_map.source).resolve() == map_file.resolve()
    assert main(['map', 'generate', '--seed', '3', '--out', str(tmp_path / 'mine.yaml')]) == 0
    assert yaml.safe_load((tmp_path / 'mine_traffic.yaml').read_text())['map'] == 'mine.yaml'


def test_cli_prints_the_map_without_out(capsys):
    assert main(['map', 'generate', '--seed', '3']) == 0
    captured = capsys.readouterr()
    assert captured.out == generate_map(3).text
    assert 'generated:3' in captured.err


def test_cli_refuses_bad_input_clearly(tmp_path, capsys):
    for argv, words in ((['--seed', '-1'], "argument --seed: must be an integer in 0..2147483647, got '-1'"),
                        (['--seed', '3', '--size', 'huge'], "argument --size: invalid choice: 'huge'"),
                        ([], 'the following arguments are required: --seed')):
        with pytest.raises(SystemExit) as exit_:
            main(['map', 'generate', *argv])
        assert exit_.value.code == 2 and words in capsys.readouterr().err
    assert main(['map', 'generate', '--seed', '3', '--out', str(tmp_path / 'map.txt')]) == 2
    assert 'ending in .yaml' in capsys.readouterr().err
    assert main(['map', 'check', 'generated:3:huge']) == 2
    assert 'generated:N or generated:N:SIZE' in capsys.readouterr().err


def test_cli_checks_and_exports_a_generated_map(tmp_path, capsys):
    assert main(['map', 'check', 'generated:4']) == 0
    assert "map 'generated_4'" in capsys.readouterr().out
    svg = tmp_path / 'generated_4.svg'
    assert main(['map', 'export', 'generated:4', '--out', str(svg)]) == 0
    assert svg.stat().st_size > 10_000 and '<svg' in svg.read_text()[:500]


@pytest.mark.parametrize('seed', DRIVEN)
def test_one_robot_drives_every_passage_it_chooses(seed):
    row = gp.drive_map(gp.Job(seed))
    assert gp.passed(row), row
    assert row['passages'] >= 20 and row['ways_taken'] >= row['ways'] / 2


@pytest.mark.slow
def test_one_robot_drives_every_passage_on_two_hundred_maps():
    """Every scored passage on its branch, no road loss, on all 200 maps. One decision is not
    scored: on generated:165 the controller misses a roundabout's exit mark and takes the code
    beyond it for a mark (docs/generated_maps.md, "Measured"): a controller matter.
    """
    outcomes = gp.run(ALL, duration=gp.DURATION)
    assert all(o.ok for o in outcomes), [(o.job.seed, o.error) for o in outcomes if not o.ok]
    fig = gp.figures([o.value for o in outcomes])
    assert fig['ok'] == fig['passages'] and fig['road_losses'] == 0, gp.table(fig)
    assert fig['unmatched'] <= 1 and fig['passed'] >= len(ALL) - 1, gp.table(fig)
