# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

import math

import numpy as np
import pytest

from thymio_road.map.loader import parse_map
from thymio_road.sim import robot_model as rm
from thymio_road.sim.collision import overlapping_pairs
from thymio_road.sim.world import RobotSpec, World, WorldParams

EXACT = WorldParams(motor_noise=0.0, motor_gain_spread=0.0, wheel_imbalance_spread=0.0, ground_noise=0.0,
                    prox_noise=0.0, odometry_scale_spread=0.0)


def open_map(size=(3.0, 3.0), walls=False):
    return parse_map({'size': list(size), 'walls': walls,
                      'roads': [{'id': 'r', 'start': [0.2, 0.2, 0], 'pieces': [{'straight': 0.5}]}]},
                     'inline')


def test_straight_motion_follows_the_motor_law():
    w = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0)], EXACT)
    w.command(0, 260, 260)
    w.sync(0, 2.0)
    assert w.poses[0, 0] == pytest.approx(1.0 + 2.0 * 0.0832)
    assert w.distance[0] == pytest.approx(2.0 * 0.0832)


def test_spinning_in_place_turns_at_the_axle_rate():
    w = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0)], EXACT)
    w.command(0, -150, 150)
    omega = 2 * 0.048 / rm.AXLE_LENGTH
    w.sync(0, 1.0)
    assert w.poses[0, :2] == pytest.approx([1.0, 1.0])
    assert w.poses[0, 2] == pytest.approx(omega)


def test_arc_integration_is_exact_whatever_the_steps():
    one = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0)], EXACT)
    many = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0)], EXACT)
    for w in (one, many):
        w.command(0, 200, 300)
    one.sync(0, 3.0)
    for k in range(1, 301):
        many.sync(0, k * 0.01)
    assert one.poses[0] == pytest.approx(many.poses[0], abs=1e-9)


def test_motor_variation_is_per_robot_and_seeded():
    a = World(open_map(), [RobotSpec('a', 1, 1, 0), RobotSpec('b', 1, 2, 0)], WorldParams(), seed=4)
    b = World(open_map(), [RobotSpec('a', 1, 1, 0), RobotSpec('b', 1, 2, 0)], WorldParams(), seed=4)
    assert np.array_equal(a.gain, b.gain)
    assert not np.allclose(a.gain[0], a.gain[1])


def test_static_robots_never_move():
    w = World(open_map(), [RobotSpec('light', 1.0, 1.0, 0.0, static=True)], EXACT)
    w.command(0, 300, 300)
    w.sync(0, 5.0)
    assert w.poses[0] == pytest.approx([1.0, 1.0, 0.0])


def test_head_on_robots_push_but_never_overlap_at_any_tick():
    w = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0), RobotSpec('b', 1.4, 1.0, math.pi)], EXACT)
    w.command(0, 300, 300)
    w.command(1, 150, 150)
    for tick in range(1, 600):
        t = tick * 0.01
        w.settle_contacts(t)
        for i in w.due(tick):
            w.sync(int(i), t)
        assert overlapping_pairs(w.snapshot(t)) == []
    assert w.contacts.sum() > 0
    # the stronger robot pushed the other one back
    assert w.poses[1, 0] > 1.4 - 0.5 * 6 * 0.048


def test_prox_sees_the_robot_in_front_only_within_range():
    w = World(open_map(), [RobotSpec('a', 1.0, 1.0, 0.0), RobotSpec('b', 1.2, 1.0, 0.0)], EXACT)
    # b's rear is at 1.2 - 0.03 = 1.17; a's centre sensor at 1.0795: 9 cm gap
    assert w.read_prox(0)[2] == pytest.approx(rm.prox_response(0.0905), abs=3)
    w.poses[1, 0] = 1.4
    assert w.read_prox(0)[2] == 0


def test_road_truth_counts_a_loss_once_per_excursion():
    m = open_map()
    w = World(m, [RobotSpec('a', 0.3, 0.2 - 0.0115, 0.0)], EXACT)  # follow sensor on the road
    w.record_road_truth(0)
    assert w.time_on_road[0] == pytest.approx(0.1)
    w.poses[0, 1] = 1.0  # off the road
    for _ in range(10):
        w.record_road_truth(0)
    assert w.road_losses[0] == 1
    w.poses[0, 1] = 0.2 - 0.0115
    w.record_road_truth(0)
    w.poses[0, 1] = 1.0
    for _ in range(2):
        w.record_road_truth(0)
    assert w.road_losses[0] == 1  # 0.2 s off the road is not a loss


def test_queued_commands_are_the_commands_however_they_are_applied():
    """World.command_soon: more commands than the queue holds, commands for a static robot and for
    a robot not yet at the command's time, then a read of the wheels, a tick and a snapshot: the
    same state and motor noise as World.command at once.
    """
    specs = [RobotSpec('a', 1.0, 1.0, 0.0), RobotSpec('b', 1.3, 1.0, 1.0), RobotSpec('c', 1.0, 1.3, 2.0, static=True)]
    now, soon = World(open_map(), specs, seed=3), World(open_map(), specs, seed=3)
    rng = np.random.default_rng(1)
    for tick in range(1, 40):
        t = tick * 0.01
        for world in (now, soon):
            world.tick(t, np.array([tick % 3], dtype=np.int64))
        for _ in range(int(rng.integers(0, 30))):  # up to 29 commands a tick; the queue holds 11
            i, left, right = int(rng.integers(0, 3)), int(rng.integers(-500, 500)), int(rng.integers(-500, 500))
            at = t if rng.random() < 0.9 else t + 0.005  # a robot behind the command's time: at once
            now.command(i, left, right, at=at)
            soon.command_soon(i, left, right, at)
        if tick % 7 == 0:
            assert np.array_equal(now.wheel, soon.wheel)
        if tick % 11 == 0:
            assert np.array_equal(now.snapshot(t + 0.05), soon.snapshot(t + 0.05))
    for name in ('targets', 'target', 'wheel', 'poses', 'odom', 'clock', 'distance'):
        assert np.array_equal(getattr(now, name), getattr(soon, name)), name
    assert now.motor_noise.cursor[0] == soon.motor_noise.cursor[0]
