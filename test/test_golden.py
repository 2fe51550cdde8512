# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Golden digests: short runs whose robots' every decision is pinned, so that a refactor of the
controller or the simulator is proven to leave behaviour unchanged (issue #26).

Each case runs a shipped scenario for 120 simulated seconds (one for 600 s) in the embedded runtime and hashes,
per robot, the wheel commands its controller returned at every step and the events it logged
(`controller/events`), and, for the whole world, the ground-truth poses sampled every 0.1 s;
the recovery experiment's trials are hashed as it reports them. A
change that moves any robot by a bit, or changes one decision, changes a digest.

Events of kind ``mode`` (the controller's explicit modes, added by the refactor so that analysis
sees them) are left out of the event digest: they report behaviour, they are not behaviour.

To re-pin after a deliberate change of behaviour (say why in the commit):
``python test/test_golden.py --update``; without ``--update`` it only prints the digests.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
import struct
import sys

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from thymio_road.runtime.run import Graph  # noqa: E402
from thymio_road.scenario import load_scenario  # noqa: E402

DURATION = 120.0
#: Event kinds that describe rather than decide (see the module docstring).
DESCRIPTIVE_EVENTS = frozenset({'mode'})

#: name -> (scenario, seed, robots, controller overrides)
CASES = {
    'final_traffic_seed1': ('final_traffic', 1, None, None),
    'final_traffic_seed2': ('final_traffic', 2, 15, None),
    'priority_seed1': ('priority', 1, None, None),
    'final_traffic_report_rules': ('final_traffic', 3, None, {'traffic_rules': 'report', 'recovery': 'report',
                                                              'read_method': 'report', 'light_edge': 0}),
    'final_report': ('final', 0, 4, None),
    # Ten minutes: robots make way and hold (rare in two minutes).
    'priority_seed1_600s': ('priority', 1, None, None, 600.0),
}
#: The recovery experiment (recovery 'both': the wrong-way test, the U-turn, the left spin):
#: trials per side on the final map.
RECOVERY_TRIALS = 6
#: The pinned digests, written by ``python test/test_golden.py --update``.
GOLDEN_FILE = Path(__file__).with_name('golden_digests.json')


class _Tape:
    """Hashes one controller's wheel commands and events as the run produces them."""

    def __init__(self, core) -> None:
        self.wheels = hashlib.sha256()
        self.events = hashlib.sha256()
        step, drain = core.step, core.drain_events

        def recorded_step(ground, prox):
            left, right = step(ground, prox)
            self.wheels.update(struct.pack('<ii', left, right))
            return left, right

        def recorded_drain():
            events = drain()
            for event in events:
                if event.kind not in DESCRIPTIVE_EVENTS:
                    self.events.update(json.dumps([event.kind, event.data], sort_keys=True).encode())
            return events

        core.step, core.drain_events = recorded_step, recorded_drain


def digests(case: str) -> dict[str, str]:
    """The digests of one case: per robot `<name>.wheels` and `<name>.events`, and `poses`."""
    if case == 'recovery_both':
        return _recovery_digests()
    scenario_name, seed, robots, controller, *rest = CASES[case]
    duration = rest[0] if rest else DURATION
    scenario = load_scenario(scenario_name, robots=robots, seed=seed, duration=duration, controller=controller)
    graph = Graph(scenario)
    tapes = {robot.name: _Tape(graph.controller(robot.name).core) for robot in scenario.robots}
    world = graph.world_node.world
    poses = hashlib.sha256()
    graph.executor.add_timer(100_000_000, lambda: poses.update(np.ascontiguousarray(world.poses).tobytes()))
    graph.run(duration)
    out = {'poses': poses.hexdigest()[:16]}
    for name, tape in tapes.items():
        out[f'{name}.wheels'] = tape.wheels.hexdigest()[:16]
        out[f'{name}.events'] = tape.events.hexdigest()[:16]
    return out


def _recovery_digests() -> dict[str, str]:
    from thymio_road.experiments.recovery import experiment, SIDES
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    results = experiment(load_map(find_config('maps', 'final')), trials=RECOVERY_TRIALS, seed=1)
    return {side: hashlib.sha256(repr(results[side]).encode()).hexdigest()[:16] for side in SIDES}


@pytest.mark.slow
@pytest.mark.parametrize('case', sorted([*CASES, 'recovery_both']))
def test_a_run_is_unchanged_to_the_last_bit(case: str) -> None:
    golden = json.loads(GOLDEN_FILE.read_text())[case]
    now = digests(case)
    changed = sorted(key for key in golden if now.get(key) != golden[key])
    assert not changed and now.keys() == golden.keys(), f'{case}: changed {changed}'


if __name__ == '__main__':
    table = {name: digests(name) for name in [*CASES, 'recovery_both']}
    text = json.dumps(table, indent=1, sort_keys=True) + '\n'
    if '--update' in sys.argv[1:]:
        GOLDEN_FILE.write_text(text)
    print(text, end='')
