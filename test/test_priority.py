# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The priority vehicle's trip alone and in traffic (experiments/priority.py, `thymio-road priority`;
issue #13: at most 1.2 times its trip alone with 15 other robots).
"""
from __future__ import annotations

import pytest

from thymio_road.experiments.priority import experiment
from thymio_road.experiments.traffic_table import longest_cycle
from thymio_road.scenario import load_scenario


@pytest.mark.slow
def test_the_ambulance_crosses_the_final_maps_traffic_within_1_2_times_its_trip_alone():
    """Seed 2 of the table in docs/traffic.md (about 30 s): the locations' lights pre-empt for
    the queues it waits in.
    """
    [row] = experiment('priority', seeds=(2,))
    assert row['robots'] == 16 and row['alone_s'] is not None and row['traffic_s'] is not None
    assert row['ratio'] <= 1.2
    assert row['preemptions'] >= 1


def test_light_holds_are_judged_against_the_held_green_only_with_a_priority_vehicle():
    assert longest_cycle(load_scenario('final_traffic')) == 2 * (8 + 15 + 10)
    assert longest_cycle(load_scenario('priority')) == 2 * (8 + 30 + 15 + 10)


def test_a_trip_that_raises_is_reported_with_its_seed_and_the_command_fails(monkeypatch, capsys):
    """Issue #28: the other seeds' rows stay, the failed one names its seed, robots and error."""
    from thymio_road.cli.main import main
    from thymio_road.experiments import priority

    def trip(scenario, robots, seed, limit):
        if seed == 2 and robots > 1:
            raise RuntimeError('the ambulance has no mission')
        return priority.Trip(seed, robots, 100.0 * robots, robots - 1)

    monkeypatch.setattr(priority, 'trip', trip)
    rows = experiment('priority', seeds=(1, 2), robots=4)
    assert rows[0] == {'seed': 1, 'robots': 4, 'alone_s': 100.0, 'traffic_s': 400.0, 'ratio': 4.0, 'preemptions': 3}
    assert rows[1] == {'seed': 2, 'robots': 4, 'alone_s': 100.0, 'traffic_s': None, 'ratio': None,
                       'preemptions': None, 'error': '4 robots: RuntimeError: the ambulance has no mission'}
    assert main(['priority', '--seeds', '1-2', '--robots', '4', '--workers', '1']) == 1
    out = capsys.readouterr().out
    assert '| 2 | 4 | 100.0 | None | None | None |' in out
    assert '1 seed failed:\n- seed 2: 4 robots: RuntimeError: the ambulance has no mission' in out
