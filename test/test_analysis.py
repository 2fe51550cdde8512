# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road analyze`: every metric against ground truth the test logs itself.

The end-to-end recording is a scripted run on a small oval with two barcodes: one robot is
knocked off the road, buttons stop and restart robots, and a fast robot first follows a stopped
one with collision avoidance (near misses), then without it (collisions). While the run is made,
a 10 ms timer logs the world's exact poses and the controllers' states, and the controllers'
events are captured at the source, so the expected values never come from the bag or the analyser.
Metrics the simulator cannot produce yet (IR, decisions, traffic lights, trips) are checked on a
hand-written sqlite3 bag whose truth is known by construction.
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial import cKDTree

from mcap_chunks import chunk_offsets, middle_of_chunk
from thymio_road.analysis import analyze_bag, BagError
from thymio_road.analysis import metrics as m
from thymio_road.analysis import Options, read_recording
from thymio_road.nodes import msgs
from thymio_road.runtime.recorder import BagRecorder, CHUNK_PERIOD_NS
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario
from thymio_road.sim import robot_model as rm

ROOT = Path(__file__).resolve().parent.parent
DURATION = 26.0
NEAR = 0.08       # near-miss gap for this test: v2 avoidance stops about 5 cm behind
CONTACT = 0.002
TICK = 0.01

MAP = """
name: small_oval
size: [1.4, 0.9]
roads:
  - id: loop
    start: [0.45, 0.15, 0]
    closed: true
    pieces:
      - straight: 0.5
      - arc: {radius: 0.3, angle_deg: 180}
      - straight: 0.5
      - arc: {radius: 0.3, angle_deg: 180}
barcodes:
  - {id: low, road: loop, at: 0.12, code: 5}
  - {id: high, road: loop, at: 1.55, code: 3}
"""
SCENARIO = """
name: analysis_test
map: small_oval.yaml
seed: 1
controller: {barcode_actions: false}
world: {map_resolution: 0.001}   # a 1 mm /map (2 MB) fills the first MCAP chunk, as the truncation test wants
robots:
  count: 2
  road: loop
  start: 0.0
  overrides: {thymio1: {speed: 410}, thymio2: {speed: 150}}
"""


def _button(graph, robot, which):
    node = graph.controller(robot)
    handler = node._on_center if which == 'center' else node._on_forward
    handler(None, SimpleNamespace(success=False, message=''))


def _avoidance_off(graph, robot):
    core = graph.controller(robot).core
    core.params = dataclasses.replace(core.params, avoidance='off')


def _knock_left(graph, robot, metres):
    world = graph.world_node.world
    i = world.index[robot]
    th = world.poses[i, 2]
    world.poses[i, 0] -= math.sin(th) * metres
    world.poses[i, 1] += math.cos(th) * metres


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """Record the scripted run; log the truth at every 10 ms tick and every controller event."""
    folder = tmp_path_factory.mktemp('analysis')
    (folder / 'small_oval.yaml').write_text(MAP)
    (folder / 'scenario.yaml').write_text(SCENARIO)
    scenario = load_scenario(folder / 'scenario.yaml', duration=DURATION)
    recorder = BagRecorder(folder / 'bag')
    graph = Graph(scenario, recorder)
    world = graph.world_node.world
    names = [s.name for s in world.specs]
    knocked = {}

    def knock(robot, metres):
        i = world.index[robot]
        knocked[robot] = world.poses[i].copy()
        _knock_left(graph, robot, metres)

    def restore(robot):
        world.poses[world.index[robot]] = knocked[robot]

    # thymio2 waits (STOP) just before barcode 'high', is knocked off the road and put back;
    # thymio1 (fast, avoidance v2) closes in and stops behind it: a near miss. Both stop, thymio2
    # drives off and reads 'high'; thymio1 follows without avoidance and rams it: a collision.
    script = [(0.05, lambda: _button(graph, 'thymio2', 'center')),
              (2.0, lambda: knock('thymio2', 0.06)),
              (4.0, lambda: restore('thymio2')),
              (13.0, lambda: _button(graph, 'thymio1', 'center')),
              (13.0, lambda: _button(graph, 'thymio2', 'forward')),
              (16.0, lambda: _avoidance_off(graph, 'thymio1')),
              (16.0, lambda: _button(graph, 'thymio1', 'forward')),
              (22.0, lambda: _button(graph, 'thymio1', 'center'))]
    log = {'t': [], 'poses': [], 'states': []}
    events = {n: [] for n in names}

    def capture(name, core):
        drain = core.drain_events

        def wrapped():
            out = drain()
            events[name].extend((graph.executor.now_ns / 1e9, e) for e in out)
            return out
        core.drain_events = wrapped

    for n in names:
        capture(n, graph.controller(n).core)

    def tick():
        t = graph.executor.now_ns / 1e9
        while script and script[0][0] <= t + 1e-9:
            script.pop(0)[1]()
        log['t'].append(t)
        log['poses'].append(world.snapshot(t))
        log['states'].append([graph.controller(n).core.state.name for n in names])
    graph.executor.add_timer(int(TICK * 1e9), tick)
    try:
        graph.run(DURATION)
    finally:
        recorder.close()
    truth = SimpleNamespace(names=names, t=np.array(log['t']), poses=np.array(log['poses']),
                            states=np.array(log['states']), events=events,
                            summary={row['robot']: row for row in world.summary()},
                            road_map=scenario.road_map)
    result, files = analyze_bag(folder / 'bag', folder / 'report',
                                options=Options(contact_gap=CONTACT, near_miss_gap=NEAR))
    return SimpleNamespace(folder=folder, truth=truth, result=result, files=files,
                           rows={r['robot']: r for r in result.robots})


# --- independent ground truth -------------------------------------------------------------------

def _dense_hull(spacing=0.0005):
    """The hull's boundary as points every 0.5 mm (a different method from the analyser's)."""
    poly = rm.HULL
    nxt = np.roll(poly, -1, axis=0)
    points = []
    for a, b in zip(poly, nxt):
        n = max(1, int(np.ceil(np.hypot(*(b - a)) / spacing)))
        points.append(a + np.linspace(0, 1, n, endpoint=False)[:, None] * (b - a))
    return np.vstack(points)


def _truth_episodes(truth):
    """Proximity episodes from the exact 10 ms poses: nearest boundary points, in robot frames."""
    hull = _dense_hull()
    tree = cKDTree(hull)
    out = []
    names = truth.names
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            gaps = np.full(len(truth.t), np.inf)
            for k, (pa, pb) in enumerate(zip(truth.poses[:, i], truth.poses[:, j])):
                if math.hypot(pa[0] - pb[0], pa[1] - pb[1]) > 2 * rm.HULL_BOUND_RADIUS + NEAR:
                    continue
                world_b = _place(hull, pb) - pa[:2]
                c, s = math.cos(pa[2]), math.sin(pa[2])
                in_a = np.column_stack([c * world_b[:, 0] + s * world_b[:, 1],
                                        -s * world_b[:, 0] + c * world_b[:, 1]])
                gaps[k] = tree.query(in_a)[0].min()
            close = gaps < NEAR
            starts, ends = m.runs(close)
            merged = []
            for s0, e0 in zip(starts, ends):
                if merged and truth.t[s0] - truth.t[merged[-1][1] - 1] <= 0.5:
                    merged[-1][1] = e0
                else:
                    merged.append([s0, e0])
            for s0, e0 in merged:
                low = gaps[s0:e0].min()
                out.append((names[i], names[j], truth.t[s0], truth.t[e0 - 1], low,
                            'collision' if low <= CONTACT + 0.0005 else 'near miss'))
    return out


def _place(points, pose):
    c, s = math.cos(pose[2]), math.sin(pose[2])
    return np.column_stack([pose[0] + c * points[:, 0] - s * points[:, 1],
                            pose[1] + s * points[:, 0] + c * points[:, 1]])


# --- end-to-end checks -------------------------------------------------------------------------------

def test_distance_matches_the_exact_path(run):
    # The exact path is logged every 10 ms; while robots push each other it jitters by a
    # fraction of a millimetre per tick, which 10 Hz poses do not see (hence 0.5 %).
    truth = run.truth
    for i, name in enumerate(truth.names):
        xy = truth.poses[:, i, :2]
        exact = np.hypot(*np.diff(xy, axis=0).T).sum()
        assert run.rows[name]['distance_m'] == pytest.approx(exact, rel=0.005), name


def test_road_keeping_matches_the_simulators_own_ground_truth(run):
    summary = run.truth.summary
    assert summary['thymio2']['road_losses'] == 1, 'the knock must make thymio2 lose the road'
    for name in run.truth.names:
        row = run.rows[name]
        assert row['road_losses'] == summary[name]['road_losses']
        assert row['time_on_road_s'] == pytest.approx(summary[name]['time_on_road_s'], abs=1e-6)
        assert row['time_s'] == pytest.approx(summary[name]['time_s'], abs=1e-6)
    # the loss is when the robot was knocked off, until it was put back
    (start, end), = run.rows['thymio2']['road_loss_times']
    assert start == pytest.approx(2.0, abs=0.1) and end == pytest.approx(4.0, abs=0.1)


def test_time_per_state_matches_the_sampled_states(run):
    truth = run.truth
    for i, name in enumerate(truth.names):
        expected = {s: float((truth.states[:, i] == s).sum()) * TICK
                    for s in np.unique(truth.states[:, i])}
        got = run.rows[name]['time_per_state_s']
        assert set(got) == set(expected), name
        for state, seconds in expected.items():
            assert got[state] == pytest.approx(seconds, abs=0.03), (name, state)
    assert run.rows['thymio1']['time_per_state_s']['STOP'] == pytest.approx(3.0 + 4.0, abs=0.03)
    assert run.rows['thymio2']['time_per_state_s']['STOP'] == pytest.approx(12.95, abs=0.03)
    assert run.rows['thymio1']['state_changes'] == sum(
        1 for _, e in truth.events['thymio1'] if e.kind == 'state')


def test_collisions_and_near_misses_match_exact_hull_distances(run):
    expected = _truth_episodes(run.truth)
    kinds = [e[5] for e in expected]
    assert 'collision' in kinds and 'near miss' in kinds, f'the script must produce both: {expected}'
    got = run.result.episodes
    assert [(e['a'], e['b'], e['kind']) for e in got] == [(a, b, k) for a, b, _, _, _, k in expected]
    for e, (_, _, start, end, low, _) in zip(got, expected):
        assert e['start_s'] == pytest.approx(start, abs=0.15)
        assert e['end_s'] == pytest.approx(end, abs=0.15)
        assert e['min_gap_mm'] == pytest.approx(low * 1000, abs=2.0)
    for name in run.truth.names:
        assert run.rows[name]['collisions'] == kinds.count('collision')
        assert run.rows[name]['near_misses'] == kinds.count('near miss')


def test_laps_and_throughput_match_start_line_crossings(run):
    truth = run.truth
    start_x = 0.45  # the road starts at (0.45, 0.15) heading +x
    crossings = []
    for i, name in enumerate(truth.names):
        x, y = truth.poses[:, i, 0], truth.poses[:, i, 1]
        k = np.flatnonzero((x[:-1] < start_x) & (x[1:] >= start_x) & (y[1:] < 0.35))
        for j in k:
            f = (start_x - x[j]) / (x[j + 1] - x[j])
            crossings.append((name, truth.t[j] + f * TICK))
    got = [(e['robot'], e['crossed_start_s']) for e in run.result.laps]
    assert len(crossings) >= 1
    assert sorted(n for n, _ in got) == sorted(n for n, _ in crossings)
    for (n1, t1), (n2, t2) in zip(sorted(got), sorted(crossings)):
        assert n1 == n2 and t1 == pytest.approx(t2, abs=0.02)
    lap_times = [e['lap_time_s'] for e in run.result.laps if e['lap_time_s'] is not None]
    per_robot = {}
    for n, t in sorted(crossings, key=lambda c: c[1]):
        per_robot.setdefault(n, []).append(t)
    expected_laps = sorted(b - a for ts in per_robot.values() for a, b in zip(ts, ts[1:]))
    assert sorted(lap_times) == pytest.approx(expected_laps, abs=0.03)
    assert run.result.network['throughput_per_min']['loop'] == pytest.approx(
        len(crossings) * 60 / DURATION, rel=1e-3)


def test_barcode_reads_are_scored_against_the_printed_code_under_the_sensor(run):
    truth = run.truth
    road_map = truth.road_map
    for i, name in enumerate(truth.names):
        reads = [(t, e) for t, e in truth.events[name] if e.kind == 'barcode']
        triggers = [t for t, e in truth.events[name] if e.kind == 'trigger']
        row = run.rows[name]
        assert row['barcode_reads'] == len(reads)
        assert row['barcode_triggers'] == len(triggers)
        # The barcode under the reading sensor when each reading started, from the exact poses.
        expected = []
        for t_read, e in reads:
            t_trig = max(t for t in triggers if t <= t_read)
            k = int(np.searchsorted(truth.t, t_trig))
            pose = truth.poses[k, i]
            sx, sy = m.sensor_points(pose[0], pose[1], pose[2], rm.GROUND_SENSORS_TUPLE[1])
            under = road_map.barcode_index[road_map.pixel(sx, sy)]
            code = road_map.barcodes[int(under)].code if under >= 0 else None
            expected.append('false trigger' if code is None else
                            'correct' if code == e.data['code'] else 'misread')
        got = [b['verdict'] for b in run.result.barcode_reads if b['robot'] == name and b['code'] is not None]
        assert got == expected, name
    assert run.rows['thymio1']['barcode_reads'] >= 2, 'thymio1 must pass both barcodes'


def test_absent_data_is_named_not_invented(run):
    nc = run.result.not_computed
    assert 'no comm/rx' in nc['IR messages received']
    assert 'decision' in nc['intersection decisions and outcomes']
    assert 'traffic lights' in nc['waiting at traffic lights']
    assert all('ir_received' not in r for r in run.result.robots)


def test_report_files(run):
    files = run.files
    for name in ('index.html', 'metrics.json', 'robots.csv', 'episodes.csv', 'laps.csv',
                 'barcodes.csv', 'paths.png', 'states.png', 'timeline.png'):
        assert name in files and files[name].stat().st_size > 0, name
    page = files['index.html'].read_text()
    assert 'Not computed' in page and 'IR messages received' in page and 'thymio1' in page
    data = json.loads(files['metrics.json'].read_text())
    assert data['robots'][0]['road_losses'] == run.rows['thymio1']['road_losses']
    header = files['robots.csv'].read_text().splitlines()[0].split(',')
    assert 'distance_m' in header and 'time_STOP_s' in header
    assert files['paths.png'].read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


# --- damaged recordings -------------------------------------------------------------------------------

def test_truncated_mcap_gives_a_partial_report_that_says_so(run, tmp_path):
    bag = tmp_path / 'bag'
    shutil.copytree(run.folder / 'bag', bag)
    (mcap,) = bag.glob('*.mcap')
    data = mcap.read_bytes()
    chunks = chunk_offsets(data)
    assert len(chunks) >= 3, 'the recording should span several chunks'
    # A crash: the file ends in the middle of a chunk (half way through the run), with no
    # summary or footer.
    k = len(chunks) // 2
    mcap.write_bytes(data[:middle_of_chunk(data, k)])
    result, files = analyze_bag(bag, tmp_path / 'report')
    problems = ' '.join(result.recording['problems'])
    assert 'record by record' in problems and 'incomplete record' in problems
    # The recording's chunks are zstd-compressed: the cut one is lost as a whole (0.5 s at most).
    assert 'recovered' not in problems
    half = CHUNK_PERIOD_NS / 1e9  # chunk k holds the k-th half second, or the (k-1)-th when the
    assert (k - 1) * half - 0.1 < result.recording['duration_s'] < k * half  # map had one of its own
    assert 2.0 < result.recording['duration_s'] < DURATION - 5.0
    assert 'Problems with this recording' in files['index.html'].read_text()
    for row in result.robots:
        assert 10 < row['samples'] < run.rows[row['robot']]['samples']
        assert row['time_s'] == pytest.approx(row['samples'] * 0.1)
    # Cut inside the first chunk (which holds /map and no pose): nothing to report, a clear error.
    mcap.write_bytes(data[:chunks[0] + 100])
    with pytest.raises(BagError, match='no complete message'):
        read_recording(bag)


def test_an_uncompressed_chunk_cut_short_is_read_up_to_the_cut(tmp_path):
    recorder = BagRecorder(tmp_path / 'bag', compression='none')
    try:
        Graph(load_scenario('oval', robots=2, duration=3.0), recorder).run(3.0)
    finally:
        recorder.close()
    (mcap,) = (tmp_path / 'bag').glob('*.mcap')
    data = mcap.read_bytes()
    assert b'zstd' not in data[:chunk_offsets(data)[1]]
    mcap.write_bytes(data[:middle_of_chunk(data, 3)])  # half way through 1.5..2 s
    rec = read_recording(tmp_path / 'bag')
    assert 'messages were recovered from it' in ' '.join(rec.problems)
    assert 1.6 < rec.end < 1.99


def test_bag_folder_without_metadata_is_read_from_its_storage_file(run, tmp_path):
    bag = tmp_path / 'bag'
    shutil.copytree(run.folder / 'bag', bag)
    (bag / 'metadata.yaml').unlink()
    rec = read_recording(bag)
    assert 'metadata' in rec.problems[0]
    assert len(rec.truth['thymio1']) == len(read_recording(run.folder / 'bag').truth['thymio1'])


def test_unreadable_files_give_a_clear_error(tmp_path):
    junk = tmp_path / 'junk.mcap'
    junk.write_bytes(b'this is not a recording')
    with pytest.raises(BagError, match='junk.mcap'):
        read_recording(junk)
    with pytest.raises(BagError, match='no such file'):
        read_recording(tmp_path / 'missing')
    empty = tmp_path / 'empty'
    empty.mkdir()
    with pytest.raises(BagError, match='empty'):
        read_recording(empty)


@pytest.mark.slow
def test_cli_analyze(run, tmp_path, capsys):
    out = tmp_path / 'cli-report'
    proc = subprocess.run([sys.executable, '-m', 'thymio_road.cli', 'analyze', str(run.folder / 'bag'),
                           '--out', str(out), '--near-miss-mm', '80'], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert 'thymio1' in proc.stdout and 'not computed: IR messages received' in proc.stdout
    assert (out / 'index.html').exists()
    from thymio_road.cli.main import main
    assert main(['analyze', str(tmp_path / 'nope')]) == 2
    assert 'nope: no such file' in capsys.readouterr().err


# --- a hand-written sqlite3 bag with the events the simulator does not produce yet ------------------

SYNTHETIC_MAP = """
name: junction
size: [1.2, 1.0]
roads:
  - {id: a, start: [0.1, 0.5, 0], pieces: [{straight: 0.8}]}
  - {id: b, start: [0.9, 0.5, 90], pieces: [{straight: 0.35}]}
  - {id: c, start: [0.3, 0.15, 0], closed: true, pieces: [{arc: {radius: 0.1, angle_deg: 360}}]}
"""
#: r3 drives road c (a circle of 10 cm about (0.3, 0.25)) counter-clockwise, one lap in 6 s,
#: starting half a lap from c's start: it crosses the start at 3, 9, 15, 21 and 27 s.
LAP = 6.0


def _r3_pose(t):
    a = -math.pi / 2 + math.pi + 2 * math.pi * t / LAP
    return 0.3 + 0.1 * math.cos(a), 0.25 + 0.1 * math.sin(a), a + math.pi / 2


def _r1_pose(t):
    """r1: along road a at 0.1 m/s, stopped 5-8 s near the light, then up road b from t = 10."""
    if t < 5:
        return 0.2 + 0.1 * t, 0.5, 0.0
    if t <= 8:
        return 0.7, 0.5, 0.0
    if t <= 10:
        return 0.7 + 0.1 * (t - 8), 0.5, 0.0
    return 0.9, 0.5 + 0.015 * (t - 10), math.pi / 2


def _write_synthetic(path, map_text):
    from rosbags.rosbag2 import StoragePlugin, Writer
    store = msgs.typestore
    with Writer(path, version=8, storage_plugin=StoragePlugin.SQLITE3) as writer:
        conns = {}

        def conn(topic, cls):
            name = msgs.type_name(cls)
            conns[topic] = (writer.add_connection(topic, name, typestore=store), name)

        for topic, cls in (('/world/map_description', msgs.String), ('/world/events', msgs.String),
                           ('/r1/ground_truth', msgs.Odometry), ('/light1/ground_truth', msgs.Odometry),
                           ('/r3/ground_truth', msgs.Odometry),
                           ('/r1/controller/events', msgs.String), ('/r1/controller/state', msgs.String),
                           ('/r1/comm/rx', msgs.Int16MultiArray), ('/r1/comm/tx', msgs.Int16),
                           ('/light1/comm/tx', msgs.Int16), ('/r2/controller/state', msgs.String)):
            conn(topic, cls)
        rows = []

        def put(topic, t, msg):
            rows.append((int(round(t * 1e9)), topic, msg))

        put('/world/map_description', 0.0, msgs.String(data=map_text))
        put('/r1/controller/state', 0.0, msgs.String(data='ROAD'))
        put('/r2/controller/state', 0.0, msgs.String(data='STOP'))
        put('/light1/comm/tx', 0.0, msgs.Int16(data=42))
        put('/r1/comm/tx', 0.0, msgs.Int16(data=7))
        for k in range(301):
            t = k * 0.1
            for robot, (x, y, th) in (('r1', _r1_pose(t)), ('light1', (0.75, 0.62, 0.0)),
                                      ('r3', _r3_pose(t))):
                odom = msgs.Odometry(header=msgs.Header(stamp=msgs.stamp(t), frame_id='map'),
                                     child_frame_id=f'{robot}/base_link')
                odom.pose.pose.position = msgs.Point(x=x, y=y, z=0.0)
                odom.pose.pose.orientation = msgs.quaternion_from_yaw(th)
                put(f'/{robot}/ground_truth', t, odom)
        events = [{'t': 3.0, 'kind': 'arrival', 'location': 1},
                  {'t': 1.5, 'kind': 'trigger'}, {'t': 2.0, 'kind': 'barcode', 'code': 3},
                  {'t': 5.0, 'kind': 'state', 'from': 'ROAD', 'to': 'STOP'},
                  {'t': 8.0, 'kind': 'state', 'from': 'STOP', 'to': 'ROAD'},
                  {'t': 10.0, 'kind': 'decision', 'intersection': 'crossroad', 'choice': 'left'},
                  {'t': 12.0, 'kind': 'barcode', 'code': 4},
                  {'t': 15.0, 'kind': 'barcode', 'code': 2},
                  {'t': 20.0, 'kind': 'arrival', 'location': 2}]
        for e in events:
            put('/r1/controller/events', e['t'], msgs.String(data=json.dumps(e)))
        for t, code, bar in ((1.0, 3, 'b1'), (11.0, 6, 'b2'), (17.0, 1, 'b3')):
            put('/world/events', t, msgs.String(data=json.dumps(
                {'t': t, 'kind': 'barcode_enter', 'robot': 'r1', 'barcode': bar, 'code': code, 'bits': 4})))
        for k in range(5):
            rx = [42] + [0] * 7 + [0] * 7
            put('/r1/comm/rx', 6.0 + 0.1 * k, msgs.Int16MultiArray(data=msgs.int16_array(rx)))
        for k in range(2):
            put('/r1/comm/rx', 7.0 + 0.1 * k, msgs.Int16MultiArray(data=msgs.int16_array([0] * 15)))
        for t, topic, msg in sorted(rows, key=lambda r: r[0]):
            c, name = conns[topic]
            writer.write(c, t, store.serialize_cdr(msg, name))


@pytest.fixture(scope='module')
def synthetic(tmp_path_factory):
    folder = tmp_path_factory.mktemp('synthetic')
    _write_synthetic(folder / 'bag', SYNTHETIC_MAP)
    result, files = analyze_bag(folder / 'bag', folder / 'report')
    return result, {r['robot']: r for r in result.robots}, files


def test_synthetic_sqlite_bag_per_robot_metrics(synthetic):
    result, rows, _ = synthetic
    assert result.recording['storage'] == 'rosbag2 (sqlite3)'
    assert result.recording['traffic_lights'] == ['light1']
    r1 = rows['r1']
    assert r1['distance_m'] == pytest.approx(0.5 + 0.2 + 0.3, abs=1e-9)
    assert r1['time_per_state_s'] == pytest.approx({'ROAD': 27.0, 'STOP': 3.0})
    # r2 has a state but no pose: its distance is not invented, and the report says why
    assert 'distance_m' not in rows['r2']
    assert any('r2' in k and 'ground_truth' in v for k, v in result.not_computed.items())


def test_synthetic_barcode_verdicts(synthetic):
    result, rows, _ = synthetic
    verdicts = [(b['t'], b['verdict'], b['code'], b['true_code']) for b in result.barcode_reads]
    assert verdicts == [(2.0, 'correct', 3, 3), (12.0, 'misread', 4, 6), (15.0, 'false trigger', 2, None),
                        (17.0, 'missed', None, 1)]
    r1 = rows['r1']
    assert (r1['barcode_reads'], r1['barcode_correct'], r1['barcode_errors']) == (3, 1, 3)
    assert (r1['barcode_misreads'], r1['barcode_false_triggers'], r1['barcode_missed']) == (1, 1, 1)


def test_synthetic_decision_wait_ir_and_trip(synthetic):
    result, rows, _ = synthetic
    (decision,) = result.decisions
    assert (decision['intersection'], decision['choice'], decision['outcome_road']) == ('crossroad', 'left', 'b')
    (wait,) = result.waits
    assert (wait['robot'], wait['light']) == ('r1', 'light1')
    assert wait['wait_s'] == pytest.approx(3.0) and wait['start_s'] == pytest.approx(5.0)
    assert rows['r1']['waits_at_lights'] == 1
    assert rows['r1']['ir_received'] == 5 and rows['r1']['ir_values'] == {42: 5}
    assert rows['r1']['ir_from'] == {'light1': 5}
    assert result.network['trips'] == [{'robot': 'r1', 'from': 1, 'to': 2, 'travel_time_s': 17.0}]


def test_synthetic_laps_and_throughput(synthetic):
    result, rows, _ = synthetic
    laps = [(e['road'], e['crossed_start_s'], e['lap_time_s']) for e in result.laps if e['robot'] == 'r3']
    assert [(road, t) for road, t, _ in laps] == [('c', pytest.approx(t)) for t in (3.0, 9.0, 15.0, 21.0, 27.0)]
    assert [lap for _, _, lap in laps[1:]] == pytest.approx([LAP] * 4)
    assert rows['r3']['mean_lap_time_s'] == pytest.approx(LAP)
    assert result.network['throughput_per_min'] == {'c': pytest.approx(5 * 60 / 30.0)}
    assert rows['r3']['distance_m'] == pytest.approx(2 * math.pi * 0.1 * 30 / LAP, rel=1e-3)
    assert not [e for e in result.laps if e['robot'] == 'r1']  # roads a and b are open


# --- the pieces on hand-made data -----------------------------------------------------------------

def test_road_keeping_counts_a_loss_at_three_samples_like_the_world():
    t = np.arange(12) * 0.1
    on = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0], dtype=bool)
    keeping = m.road_keeping(t, on, 0.1)
    assert keeping.losses == 2
    assert keeping.time_on_road == pytest.approx(0.3)
    assert keeping.loss_spans == [(pytest.approx(0.4), pytest.approx(0.7)),
                                  (pytest.approx(0.8), pytest.approx(1.2))]


def test_hull_gap_of_two_robots_side_by_side():
    # Two robots facing +x, 20 cm apart sideways: the hulls' sides are 0.2 - 2·5.5 cm apart.
    a = np.array([[0.0, 0.0, 0.0]])
    b = np.array([[0.0, 0.2, 0.0]])
    assert m.hull_gaps(a, b)[0] == pytest.approx(0.2 - 2 * rm.HULL_HALF_WIDTH, abs=1e-9)
    # Nose to tail: front arc tip at 8 cm, rear at -3 cm.
    c = np.array([[0.08 + 0.03 + 0.01, 0.0, 0.0]])
    assert m.hull_gaps(a, c)[0] == pytest.approx(0.01, abs=1e-9)
    assert m.hull_gaps(a, a)[0] == 0.0


def test_a_recorded_map_at_another_resolution_than_the_raster_is_recognised():
    """/map is published on cells of map_resolution (5 mm by default), the map's raster is 1 mm."""
    from thymio_road.analysis.bag import Grid, Recording
    from thymio_road.analysis.mapsource import resolve_map
    from thymio_road.map.loader import load_map
    road_map = load_map(Path(__file__).parent.parent / 'config/maps/oval.yaml')
    rec = Recording(Path('x'), 'mcap', {}, {}, 0.0, 0.0, [])
    rec.grid = Grid(0.005, (0.0, 0.0), road_map.occupancy(0.005))
    source = resolve_map(rec)
    assert source.road_map is not None and source.road_map.name == 'oval' and not source.notes
    rec.grid = Grid(0.005, (0.0, 0.0), np.zeros((10, 10), np.int8))
    source = resolve_map(rec, scenario='oval')
    assert 'probably made on another map' in ' '.join(source.notes)


def test_a_bag_without_messages_is_refused_not_given_a_negative_duration(tmp_path, capsys):
    # What a run stopped before it began used to leave: topics declared, no message.
    from rosbags.rosbag2 import StoragePlugin, Writer
    writer = Writer(tmp_path / 'bag', version=8, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    writer.add_connection('/clock', 'rosgraph_msgs/msg/Clock', typestore=msgs.typestore)
    writer.close()
    with pytest.raises(BagError, match='holds no messages'):
        read_recording(tmp_path / 'bag')
    from thymio_road.cli.main import main
    assert main(['analyze', str(tmp_path / 'bag')]) == 2
    captured = capsys.readouterr()
    assert 'bag: the recording holds no messages' in captured.err and '-9223372036' not in captured.out


def test_a_yaml_bomb_in_a_recorded_map_description_is_refused_quickly():
    """The map a bag carries is input too: the same YAML limits as a map file."""
    import time as _time

    from thymio_road.analysis.bag import Recording
    from thymio_road.analysis.mapsource import resolve_map
    bomb = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(
        f'{chr(98 + k)}: &{chr(98 + k)} [*{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, '
        f'*{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}]\n'
        for k in range(8))
    rec = Recording(Path('x'), 'mcap', {}, {}, 0.0, 0.0, [])
    rec.map_description = bomb
    t0 = _time.perf_counter()
    source = resolve_map(rec)
    assert _time.perf_counter() - t0 < 1.0
    assert source.road_map is None
    assert any('aliases expand' in note for note in source.notes), source.notes


@pytest.mark.slow
def test_time_per_mode_from_the_controllers_mode_events(tmp_path):
    """The modes that override a state's driving (docs/controller.md) are seen by `analyze`: per
    robot, time per mode adds up to the recording's length and shows the yields at roundabout
    entries, the deliveries and the light holds.
    """
    from thymio_road.runtime.run import run_scenario
    scenario = load_scenario('final_traffic', duration=120.0, seed=1)
    run_scenario(scenario, tmp_path, record='analysis', progress=False, picture=False)
    result, _ = analyze_bag(tmp_path / 'bag', scenario='final_traffic')
    rows = {r['robot']: r for r in result.robots if 'time_per_mode_s' in r}
    assert set(rows) == {robot.name for robot in scenario.robots}
    for row in rows.values():
        assert sum(row['time_per_mode_s'].values()) == pytest.approx(row['time_s'], abs=0.2)
    seen = set().union(*(row['time_per_mode_s'] for row in rows.values()))
    assert {'driving', 'yielding', 'held_by_light', 'delivering'} <= seen
    assert 'time per mode' not in result.not_computed
