"""trajectories.png: a legend that explains the markers, one colour per robot, an honest title."""
import numpy as np
from matplotlib.colors import to_hex

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
    assert len({to_hex(c) for c in drawn.colours.values()}) == 15
    assert {'start', 'end'} <= set(drawn.legend)
    assert {f'thymio{k}' for k in range(1, 16)} <= set(drawn.legend)
    assert (tmp_path / 'trajectories.png').read_bytes()[:4] == b'\x89PNG'


def test_colours_stay_distinct_beyond_any_fixed_cycle():
    for count in (1, 10, 11, 20, 21, 60):
        assert len({to_hex(c) for c in robot_colours(count)}) == count


def test_many_robots_still_explain_the_markers(tmp_path):
    road_map = load_map(find_config('maps', 'oval'))
    drawn = plot_trajectories(road_map, _paths(30), tmp_path / 'many.png')
    assert {'start', 'end'} <= set(drawn.legend)


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
