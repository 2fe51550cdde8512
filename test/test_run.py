# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""run_scenario's output folder (an earlier run is never overwritten, a failed start leaves nothing) and the
embedded fast path (direct calls between the world and the controllers where nothing else listens).
"""
from __future__ import annotations

import json

import pytest

from thymio_road.cli.main import main
from thymio_road.nodes import msgs
from thymio_road.runtime import run as run_module
from thymio_road.runtime.run import OutputExists, run_scenario
from thymio_road.scenario import load_scenario


def _scenario(duration: float = 1.0):
    return load_scenario('oval', robots=1, duration=duration)


@pytest.mark.parametrize('record', [True, False])
def test_a_folder_with_an_earlier_run_is_refused(tmp_path, record):
    run_scenario(_scenario(), tmp_path, record=False, progress=False, picture=False)
    before = (tmp_path / 'summary.json').read_bytes()
    with pytest.raises(OutputExists, match=f'{tmp_path} holds an earlier run \\(summary.json\\)'):
        run_scenario(_scenario(2.0), tmp_path, record=record, progress=False, picture=False)
    assert (tmp_path / 'summary.json').read_bytes() == before
    assert not (tmp_path / 'bag').exists()


def test_cli_no_record_into_an_earlier_run_exits_2_naming_the_folder(tmp_path, capsys):
    out = tmp_path / 'earlier'
    assert main(['run', '--duration', '1', '--robots', '1', '--out', str(out), '--quiet']) == 0
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    capsys.readouterr()
    assert main(['run', '--duration', '2', '--out', str(out), '--no-record', '--quiet']) == 2
    err = capsys.readouterr().err
    assert f'error: {out} holds an earlier run (bag/, summary.json, trajectories.png)' in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files
    assert json.loads(files['summary.json'])['simulated_s'] == 1.0


def test_an_unclosed_bag_is_named_with_the_repair_command(tmp_path):
    (tmp_path / 'bag').mkdir()
    (tmp_path / 'bag' / 'bag.mcap').write_bytes(b'\x89MCAP0\r\n')
    with pytest.raises(OutputExists, match='bag repair'):
        run_scenario(_scenario(), tmp_path, progress=False, picture=False)


def test_a_run_that_fails_to_start_leaves_no_bag_and_no_folder(tmp_path, monkeypatch):
    class Broken(run_module.Graph):
        def __init__(self, scenario, recorder=None):
            super().__init__(scenario, recorder)  # the nodes publish their latched messages
            raise RuntimeError('a node failed')

    out = tmp_path / 'new'
    monkeypatch.setattr(run_module, 'Graph', Broken)
    with pytest.raises(RuntimeError, match='a node failed'):
        run_scenario(_scenario(), out, progress=False, picture=False)
    # The bag holds a few latched messages: it is closed (readable), not left open.
    assert (out / 'bag' / 'metadata.yaml').exists()

    class Empty(run_module.Graph):
        def __init__(self, scenario, recorder=None):
            raise RuntimeError('no node started')

    monkeypatch.setattr(run_module, 'Graph', Empty)
    with pytest.raises(RuntimeError, match='no node started'):
        run_scenario(_scenario(), tmp_path / 'other', progress=False, picture=False)
    assert not (tmp_path / 'other').exists()  # an empty bag is removed, and the empty folder


def test_an_empty_bag_of_an_earlier_version_is_named_as_such(tmp_path):
    from rosbags.rosbag2 import StoragePlugin, Writer
    writer = Writer(tmp_path / 'bag', version=8, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    writer.close()
    with pytest.raises(OutputExists, match='its bag holds no messages: remove it'):
        run_scenario(_scenario(), tmp_path, progress=False, picture=False)


# --- the fast path (issue #15): direct calls where nothing else listens ----------------------------

def _graph(robots, recorder=None, name='final'):
    from thymio_road.runtime.run import Graph
    scenario = load_scenario(name, robots=robots, seed=3, duration=20.0)
    msgs.use_distro(scenario.ros_distro)
    return Graph(scenario, recorder)


def _state(graph):
    world = graph.world_node.world
    medium = graph.nodes.get('/ir_medium')
    return (world.poses.tolist(), world.distance.tolist(), world.contacts.tolist(),
            [graph.controller(s.name).core.state.name for s in world.specs if not s.static],
            None if medium is None else (medium.sent, medium.received, medium.poses.tolist()))


@pytest.mark.slow
@pytest.mark.parametrize('name', ['final', 'final_traffic'])
def test_fast_path_runs_exactly_the_messages_run(name):
    fast = _graph(6, name=name)
    slow = _graph(6, name=name)
    heard = []
    robots = [s.name for s in slow.world_node.world.specs if not s.static]
    # An extra reader of every robot's sensor topics, cmd_vel and ground truth turns the direct calls off.
    for robot in robots:
        for topic, kind in (('prox/horizontal', msgs.Int16MultiArray), ('prox/ground/delta', msgs.Int16MultiArray),
                            ('cmd_vel', msgs.Twist), ('ground_truth', msgs.Odometry)):
            slow.executor.subscribe(f'/{robot}/{topic}', kind, heard.append, msgs.SENSOR)
    world = fast.world_node
    assert all(world.direct[world.names.index(r)] is not None for r in robots)
    assert all(fast.controller(r).command_sink is not None for r in robots)
    # The IR medium reads the robots' ground truth in final_traffic: values instead of Odometry.
    assert any(world.truth_direct) == (name == 'final_traffic')
    assert not any(slow.world_node.direct[slow.world_node.names.index(r)] for r in robots)
    assert not any(slow.world_node.truth_direct[slow.world_node.names.index(r)] for r in robots)
    assert not any(slow.controller(r).command_sink for r in robots)
    # Nothing reads the fast graph's Range, odom or TF: they are not built; the extra ground_truth
    # reader makes the slow graph build them (and its Odometry).
    assert all(world.quiet[world.names.index(r)] for r in robots)
    assert not any(slow.world_node.quiet[slow.world_node.names.index(r)] for r in robots)
    fast.run(20.0)
    slow.run(20.0)
    assert len(heard) == 4 * 6 * 200  # 10 Hz, four topics, six robots
    assert _state(fast) == _state(slow)
    assert sum(fast.world_node.world.distance) > 6 * 20 * 0.05  # they drove


def test_a_reader_that_arrives_mid_run_gets_the_messages():
    graph = _graph(2)
    graph.run(1.0)
    heard = []
    graph.executor.subscribe('/thymio2/prox/ground/delta', msgs.Int16MultiArray, heard.append, msgs.SENSOR)
    assert graph.world_node.direct[0] is not None and graph.world_node.direct[1] is None
    ranges = []
    graph.executor.subscribe('/tf', msgs.TFMessage, ranges.append, msgs.SENSOR)
    graph.executor.subscribe('/thymio1/proximity/center', msgs.Range, ranges.append, msgs.SENSOR)
    assert not any(graph.world_node.quiet)
    graph.run(2.0)
    assert len(heard) == 10
    assert sum(hasattr(m, 'radiation_type') for m in ranges) == 10
    assert sum(hasattr(m, 'transforms') for m in ranges) == 20  # both robots' TF


def test_a_recorded_run_takes_the_messages_path(tmp_path):
    from thymio_road.runtime.recorder import BagRecorder
    recorder = BagRecorder(tmp_path / 'bag')
    graph = _graph(2, recorder)
    assert not any(graph.world_node.direct)
    assert not any(graph.controller(s.name).command_sink for s in graph.world_node.world.specs)
    recorder.close()
