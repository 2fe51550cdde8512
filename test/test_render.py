# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road render`: robots drawn where the ground truth puts them, in their state's colour."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from matplotlib.colors import to_rgb
import numpy as np
from PIL import Image
import pytest

from thymio_road.analysis import read_recording
from thymio_road.analysis.render import LABEL_OFFSET, render, RenderError
from thymio_road.analysis.style import IR_LINK, STATE_COLOURS
from thymio_road.nodes import msgs
from thymio_road.runtime.recorder import BagRecorder
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario

DURATION = 6.0


@pytest.fixture(scope='module')
def bag(tmp_path_factory):
    """Two robots on the oval; thymio1's centre button is pressed at 3 s (STOP)."""
    folder = tmp_path_factory.mktemp('render')
    recorder = BagRecorder(folder / 'bag')
    graph = Graph(load_scenario('oval', robots=2, duration=DURATION), recorder)
    node = graph.controller('thymio1')
    graph.executor.add_timer(3_000_000_000, lambda: node._on_center(None, SimpleNamespace()))
    try:
        graph.run(DURATION)
    finally:
        recorder.close()
    return folder / 'bag'


def _colour_at(image: Image.Image, col: float, row: float) -> np.ndarray:
    rgb = np.asarray(image.convert('RGB'), dtype=float) / 255
    return rgb[int(round(row)), int(round(col))]


def _pose(rec, robot, t):
    p = rec.truth[robot]
    return float(np.interp(t, p.t, p.x)), float(np.interp(t, p.t, p.y))


def test_frame_draws_each_robot_at_its_pose_in_its_state_colour(bag, tmp_path):
    result = render(bag, tmp_path / 'frame.png', at=5.0)
    image = Image.open(result.path)
    rec = read_recording(bag)
    for robot, state in (('thymio1', 'STOP'), ('thymio2', 'ROAD')):
        x, y = _pose(rec, robot, 5.0)
        colour = _colour_at(image, *result.pixel(x, y))
        assert colour == pytest.approx(to_rgb(STATE_COLOURS[state]), abs=0.02), robot
    # the map is under them: the road's black edge is drawn, paper elsewhere
    assert _colour_at(image, *result.pixel(0.9, 0.55)) == pytest.approx((1, 1, 1), abs=0.02)


def test_gif_of_a_time_window(bag, tmp_path):
    result = render(bag, tmp_path / 'run.gif', start=1.0, end=4.0, fps=10, speed=1.0)
    assert result.frames == 31 and result.start == pytest.approx(1.0) and result.end == pytest.approx(4.0)
    gif = Image.open(result.path)
    assert gif.n_frames == 31 and gif.info['duration'] == 100
    rec = read_recording(bag)
    frames = []
    for k in (0, 30):
        gif.seek(k)
        frames.append(gif.convert('RGB'))
    # thymio2 (ROAD) is at its 1 s pose in the first frame and has left it by the last one
    x, y = _pose(rec, 'thymio2', 1.0)
    road = to_rgb(STATE_COLOURS['ROAD'])
    assert _colour_at(frames[0], *result.pixel(x, y)) == pytest.approx(road, abs=0.06)
    assert _colour_at(frames[1], *result.pixel(x, y)) != pytest.approx(road, abs=0.06)
    # a window of 3 s at 3x is 11 frames
    assert render(bag, tmp_path / 'fast.gif', start=1.0, end=4.0, fps=10, speed=3.0).frames == 11


def test_bad_requests_are_refused_with_the_reason(bag, tmp_path):
    with pytest.raises(RenderError, match='unknown picture format'):
        render(bag, tmp_path / 'x.bmp')
    with pytest.raises(RenderError, match='outside the recording'):
        render(bag, tmp_path / 'x.png', at=100.0)
    with pytest.raises(RenderError, match='more than'):
        render(bag, tmp_path / 'x.gif', fps=10, speed=0.01)


def _write_ir_bag(path: Path) -> None:
    """Two still robots: r1 receives 33 at 1.0 s, the value r2 is sending."""
    from rosbags.rosbag2 import Writer
    store = msgs.typestore
    with Writer(path, version=8) as writer:
        def conn(topic, cls):
            return writer.add_connection(topic, msgs.type_name(cls), typestore=store), msgs.type_name(cls)
        gt = {r: conn(f'/{r}/ground_truth', msgs.Odometry) for r in ('r1', 'r2')}
        state = {r: conn(f'/{r}/controller/state', msgs.String) for r in ('r1', 'r2')}
        tx = conn('/r2/comm/tx', msgs.Int16)
        rx = conn('/r1/comm/rx', msgs.Int16MultiArray)
        for r in ('r1', 'r2'):
            c, name = state[r]
            writer.write(c, 0, store.serialize_cdr(msgs.String(data='STOP'), name))
        c, name = tx
        writer.write(c, 0, store.serialize_cdr(msgs.Int16(data=33), name))
        for k in range(21):
            t = k * 0.1
            for r, x in (('r1', 0.3), ('r2', 0.55)):
                odom = msgs.Odometry(header=msgs.Header(stamp=msgs.stamp(t), frame_id='map'))
                odom.pose.pose.position = msgs.Point(x=x, y=0.3, z=0.0)
                c, name = gt[r]
                writer.write(c, int(t * 1e9), store.serialize_cdr(odom, name))
            if k == 10:
                c, name = rx
                data = msgs.int16_array([33] + [0] * 14)
                writer.write(c, int(t * 1e9), store.serialize_cdr(msgs.Int16MultiArray(data=data), name))


def test_ir_message_is_drawn_from_sender_to_receiver(tmp_path):
    _write_ir_bag(tmp_path / 'bag')
    result = render(tmp_path / 'bag', tmp_path / 'ir.png', at=1.05)
    image = Image.open(result.path)
    # between the hulls (r1's nose at 0.38 m, r2's tail at 0.52 m)
    assert _colour_at(image, *result.pixel(0.45, 0.3)) == pytest.approx(to_rgb(IR_LINK), abs=0.03)
    assert _colour_at(image, *result.pixel(0.3, 0.33)) == pytest.approx(to_rgb(STATE_COLOURS['STOP']), abs=0.03)
    later = render(tmp_path / 'bag', tmp_path / 'later.png', at=1.05, start=0.0)
    assert later.frames == 1


def test_cli_render(bag, tmp_path, capsys):
    from thymio_road.cli.main import main
    out = tmp_path / 'cli.gif'
    assert main(['render', str(bag), '--out', str(out), '--start', '2', '--end', '3']) == 0
    assert '11 frames' in capsys.readouterr().out and out.exists()
    assert main(['render', str(bag), '--out', str(tmp_path / 'x.gif'), '--start', '50']) == 2
    assert 'outside the recording' in capsys.readouterr().err


def test_frame_names_each_robot_beside_it(bag, tmp_path):
    result = render(bag, tmp_path / 'named.png', at=5.0)
    rgb = np.asarray(Image.open(result.path).convert('RGB'), dtype=float) / 255
    rec = read_recording(bag)
    for robot in ('thymio1', 'thymio2'):
        col, row = result.pixel(*_pose(rec, robot, 5.0))
        # the label sits up and to the right of the robot: black glyphs on a pale box
        col, row = result.pixel(*(v + LABEL_OFFSET for v in _pose(rec, robot, 5.0)))
        box = rgb[int(row) - 14:int(row) + 2, int(col) - 2:int(col) + 50]
        assert (box.max(axis=2) < 0.25).sum() > 20, robot
