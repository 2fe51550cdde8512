"""The priority vehicle's trip alone and in traffic (experiments/priority.py, `thymio-road priority`;
issue #13: at most 1.2 times its trip alone with 15 other robots)."""
from __future__ import annotations

import pytest

from thymio_road.experiments.priority import experiment
from thymio_road.experiments.traffic_table import longest_cycle
from thymio_road.scenario import load_scenario


@pytest.mark.slow
def test_the_ambulance_crosses_the_final_maps_traffic_within_1_2_times_its_trip_alone():
    """Seed 2 of the table in docs/traffic.md (about 30 s): the locations' lights pre-empt for
    the queues it waits in."""
    [row] = experiment('priority', seeds=(2,))
    assert row['robots'] == 16 and row['alone_s'] is not None and row['traffic_s'] is not None
    assert row['ratio'] <= 1.2
    assert row['preemptions'] >= 1


def test_light_holds_are_judged_against_the_held_green_only_with_a_priority_vehicle():
    assert longest_cycle(load_scenario('final_traffic')) == 2 * (8 + 15 + 10)
    assert longest_cycle(load_scenario('priority')) == 2 * (8 + 30 + 15 + 10)
