# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""trajectories.png: a legend that explains the markers, one colour per robot, an honest title,
the paths where they were over the printed map.
"""
import numpy as np
from PIL import Image

from thymio_road.analysis.figures import plot_trajectories, robot_colours, run_title
from thymio_road.map.loader import load_map
from thymio_road.scenario import find_config


def _paths(count):
    t = np.linspace(0, np.pi, 20)
    return {f'thymio{k + 1}': np.column_stack([0.9 + 0.3 * np.cos(t + k), 0.55 + 0.3 * np.sin(t + k)])
            for k in range(count)}


def test_fifteen_robots_get_fifteen_distinct_colours_and_a_legend(tmp_path):
    road_map = load_map(find_config('maps', 'oval'))
    drawn = plot_trajectories(road_map, _paths(15), tmp_path / 'trajectories.png', 'fifteen')
    assert len(set(drawn.colours.values())) == 15
    assert {'start', 'end'} <= set(drawn.legend)
    assert {f'thymio{k}' for k in range(1, 16)} <= set(drawn.legend)
    assert (tmp_path / 'trajectories.png').read_bytes()[:4] == b'\x89PNG'


def test_colours_stay_distinct_beyond_any_fixed_cycle():
    for count in (1, 10, 11, 20, 21, 60):
        assert len(set(robot_colours(count))) == count


def test_many_robots_still_explain_the_markers(tmp_path):
    road_map = load_map(find_config('maps', 'oval'))
    drawn = plot_trajectories(road_map, _paths(30), tmp_path / 'many.png')
    assert {'start', 'end'} <= set(drawn.legend)


def test_the_paths_lie_where_the_robots_drove_over_the_printed_map(tmp_path):
    road_map = load_map(find_config('maps', 'oval'))
    paths = {'thymio1': np.array([[0.2, 0.3], [1.6, 0.9]]), 'thymio2': np.zeros((0, 2))}
    drawn = plot_trajectories(road_map, paths, tmp_path / 'two.png', 'two')
    image = Image.open(tmp_path / 'two.png').convert('RGB')
    left, top, right, bottom = drawn.frame
    assert right - left == 1000 and image.height > bottom - top
    assert drawn.legend == ['thymio1', 'start', 'end']    # a robot without samples has no line
    colour = tuple(int(drawn.colours['thymio1'][i:i + 2], 16) for i in (1, 3, 5))
    mid = drawn.pixel(0.9, 0.6, road_map)                   # halfway along the straight path
    assert min(np.abs(np.subtract(image.getpixel((mid[0], mid[1] + d)), colour)).max() for d in (-1, 0, 1)) < 60
    # the printed road is dark where the map's darkness says so, the paper white
    dark = road_map.occupancy(0.01)                         # 1 cm cells: 5 pixels of the picture
    row, col = np.unravel_index(np.argmax(dark), dark.shape)
    ink = drawn.pixel((col + 0.5) * 0.01, (row + 0.5) * 0.01, road_map)
    assert max(image.getpixel(ink)) < 128
    assert image.getpixel(drawn.pixel(0.02, 0.02, road_map)) == (255, 255, 255)


def test_title_grammar_and_interruption():
    assert run_title('oval', 1, 120.0, 1, False) == 'oval: 1 robot, 120 s simulated, seed 1'
    assert run_title('oval', 3, 120.0, 1, False).startswith('oval: 3 robots,')
    assert 'interrupted at 42 s' in run_title('final', 10, 41.7, 1, True)


def test_an_interrupted_run_says_so_in_its_picture(tmp_path, monkeypatch):
    from thymio_road.analysis import figures
    from thymio_road.runtime import run
    from thymio_road.scenario import load_scenario

    class StopAt3:                       # Ctrl-C after 3 simulated seconds
        def update_to(self, t):
            if t >= 3:
                raise KeyboardInterrupt

        def close(self):
            pass
    drawn = []
    real = figures.plot_trajectories
    monkeypatch.setattr(run, 'progress_reporter', lambda duration, enabled: StopAt3())
    monkeypatch.setattr(figures, 'plot_trajectories', lambda *a, **k: drawn.append(real(*a, **k)))
    result = run.run_scenario(load_scenario('oval', robots=1, duration=20), tmp_path, record=False)
    assert result.interrupted
    assert drawn[0].title == 'oval: 1 robot, interrupted at 3 s, seed 1'
