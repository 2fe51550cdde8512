# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Thymio proximity communication (swarm_comm.prox_comm) against hand-computed cases.

Geometry: robots are placed so that one chosen LED (emitter) and one chosen sensor sit at given
points and face given directions. Sensor indices are Aseba's: 0 left, 1 centre-left, 2 centre,
3 centre-right, 4 right, 5 rear-left, 6 rear-right. Response law of the documented model:
r(d) = 4200 · (275 − 0.02²) / ((d − 0.02)² + 275 − 0.02²), d in cm.
"""
import dataclasses
import math

import numpy as np
import pytest

import prox_comm_reference as reference
from swarm_comm import prox_comm as pc
from thymio_road.sim import robot_model as rm

DELTA = 1e-3  # rad / cm: "just inside" and "just outside" a boundary


def pose_for_sensor(k, point, heading):
    """The robot pose (x, y, θ) that puts sensor k at `point` (m), facing `heading` (rad)."""
    sx, sy, sa = rm.PROX_SENSORS[k]
    th = heading - sa
    c, s = math.cos(th), math.sin(th)
    return (point[0] - (c * sx - s * sy), point[1] - (s * sx + c * sy), th)


def facing(d_cm, emitter=2, sensor=2, emitter_heading=0.0, sensor_heading=math.pi):
    """Transmitter 0 with LED `emitter` at the origin; receiver 1 with `sensor` d cm along +x."""
    return np.array([pose_for_sensor(emitter, (0.0, 0.0), emitter_heading),
                     pose_for_sensor(sensor, (d_cm / 100.0, 0.0), sensor_heading)])


#: The Thymio reduced to its centre sensor (index 2): the other six sit at the back and face
#: backwards, away from a partner in front. With the ±30° sectors of enki_code the ±20° LEDs
#: would otherwise add to a head-on link, and a hand computation wants one path.
ONE_LED = np.array([(-0.03, 0.0, math.pi)] * 2 + [tuple(rm.PROX_SENSORS[2])] + [(-0.03, 0.0, math.pi)] * 4)


def step(poses, params=pc.ENKI_DOC, walls=None, payload=77, transmitters=(0,), sensors=rm.PROX_SENSORS, **kw):
    channel = pc.ProxCommChannel(params, walls, sensors=sensors)
    return channel.step(poses, list(transmitters), [payload] * len(transmitters), **kw)


def has_link(rec, link):
    return any(tuple(row) == link for row in rec.links.tolist())


# --- the response law and the threshold -------------------------------------------------------

def test_response_law_values():
    p = pc.ENKI_DOC
    # d = 10: 4200 · 274.9996 / (9.98² + 274.9996) = 1154998.3 / 374.6000 = 3083.28
    assert p.single_response(10.0) == pytest.approx(3083.2844, abs=1e-3)
    # d = ρ = 23: 1154998.3 / (22.98² + 274.9996) = 1154998.3 / 803.0800 = 1438.21
    assert p.min_response == pytest.approx(1438.2108, abs=1e-3)
    # Two emitters at 15.2873 cm (the rear LEDs, 2.95 cm either side of the axis, 15 cm behind):
    # Σ = 2 · 274.9996 / 15.2673² = 2.359616, r = 4200 / (1/Σ + 1) = 2949.85 (one alone: 2273.21)
    d = math.hypot(15.0, 2.95)
    assert p.response(2 / (d - 0.02) ** 2) == pytest.approx(2949.846, abs=1e-2)
    assert p.single_response(d) == pytest.approx(2273.212, abs=1e-2)
    assert p.response(0.0) == 0.0


def test_one_path_gives_the_law_on_that_sensor():
    rec = step(facing(10.0))
    assert len(rec) == 1
    (t, r, rx, payloads, intensities), = rec.rows()
    assert (t, r, rx) == (0, 1, 77)
    # Centre LED → centre sensor at 10 cm: floor(3083.28). The receiver's centre-left and
    # centre-right sensors, at (10.45, ∓2.55) cm facing 180° ± 20°, also see the LED:
    # d = √(10.45² + 2.55²) = 10.7566 cm, 13.7° off the LED's axis (inside 15°) and 33.7° off
    # theirs (inside 36°): 1154998.3 / (10.7366² + 274.9996) = 1154998.3 / 390.275 = 2959.5.
    # The ±20° LEDs are 20° and 45° off that line: no second path adds to these sensors.
    assert intensities == (0, 2959, 3083, 2959, 0, 0, 0)
    assert payloads == (0, 77, 77, 77, 0, 0, 0)


def test_distance_criterion_switches_at_rho():
    no_threshold = dataclasses.replace(pc.ENKI_DOC, threshold=0.0)
    for params in (pc.ENKI_DOC, no_threshold):
        inside = step(facing(23.0 - DELTA), params)
        outside = step(facing(23.0 + DELTA), params)
        assert has_link(inside, (0, 2, 1, 2))
        assert not has_link(outside, (0, 2, 1, 2))
    # Just inside ρ the response is just above the threshold (the response at ρ).
    assert step(facing(23.0 - DELTA)).intensities[0, 2] == math.floor(pc.ENKI_DOC.single_response(23.0 - DELTA))
    assert math.floor(pc.ENKI_DOC.single_response(23.0 - DELTA)) == 1438


@pytest.mark.parametrize('side', [1, -1])
def test_emitter_sector_switches_at_beta_e(side):
    beta = pc.ENKI_DOC.emitter_aperture
    assert beta == pytest.approx(math.radians(15))
    # The receiver's centre sensor looks straight at the LED; the LED turns away by β_e ± δ.
    inside = step(facing(10.0, emitter_heading=side * (beta - DELTA)))
    outside = step(facing(10.0, emitter_heading=side * (beta + DELTA)))
    assert has_link(inside, (0, 2, 1, 2))
    assert not has_link(outside, (0, 2, 1, 2))


@pytest.mark.parametrize('side', [1, -1])
def test_receiver_sector_switches_at_beta_r(side):
    beta = pc.ENKI_DOC.receiver_aperture
    assert beta == pytest.approx(math.radians(36))
    inside = step(facing(10.0, sensor_heading=math.pi + side * (beta - DELTA)))
    outside = step(facing(10.0, sensor_heading=math.pi + side * (beta + DELTA)))
    assert has_link(inside, (0, 2, 1, 2))
    assert not has_link(outside, (0, 2, 1, 2))


def test_responses_below_the_threshold_are_zeroed():
    # enki_code: fixed threshold 1400 although ρ = 48 cm.
    # r(d) = 4600 · 916.96 / ((d − 0.2)² + 916.96): r(45) = 1442.55 kept, r(47) = 1357.50 zeroed.
    assert step(facing(45.0), pc.ENKI_CODE, sensors=ONE_LED).intensities[0, 2] == 1442
    far = step(facing(47.0), pc.ENKI_CODE, sensors=ONE_LED)
    assert len(far) == 0 and far.links.shape == (0, 4)
    # With the whole Thymio, the ±20° LEDs (23° off their axes, weight ≈ 0.2) lift it above 1400.
    assert step(facing(47.0), pc.ENKI_CODE).intensities[0, 2] > 1400


# --- occlusion --------------------------------------------------------------------------------

def test_a_third_robot_between_blocks_and_aside_does_not():
    a_b = facing(20.0)
    alone = step(a_b)
    assert len(alone) == 1
    # A third Thymio centred between them, facing +x: its hull spans y ∈ [−5.5, 5.5] cm there.
    between = np.vstack([a_b, [(0.10, 0.0, 0.0)]])
    assert len(step(between)) == 0
    aside = np.vstack([a_b, [(0.10, 0.15, 0.0)]])
    assert step(aside).rows() == alone.rows()


def test_walls_block():
    wall = np.array([[(0.1, -0.5), (0.1, 0.5)]])
    assert len(step(facing(20.0), walls=wall)) == 0
    beside = np.array([[(0.1, 0.2), (0.1, 0.5)]])
    assert len(step(facing(20.0), walls=beside)) == 1


def test_own_hulls_do_not_block():
    # The centre sensor (7.95 cm) lies 0.5 mm inside the 8 cm front arc, the rear ones inside
    # the rear edge: a test against their own hulls would block this head-on link.
    rec = step(facing(10.0))
    assert rec.intensities[0, 2] > 0
    hull = pc.segments_hit_hulls(np.array([[0.0, 0.0]]), np.array([[0.1, 0.0]]),
                                 np.array(facing(10.0)[0][:2])[None], np.array([facing(10.0)[0][2]]))
    assert hull[0], "the segment does cross the emitter's own hull near the LED"


# --- which sensors, in which order -----------------------------------------------------------

def test_transmitter_in_front_behind_and_front_left():
    receiver = (0.0, 0.0, 0.0)

    def heard_from(x, y):
        transmitter = (x, y, math.atan2(-y, -x))  # facing the receiver
        rec = step(np.array([transmitter, receiver]))
        assert len(rec) == 1 and rec.receiver[0] == 1
        return rec.intensities[0], rec.payloads[0], rec.rx[0]

    front, payloads, rx = heard_from(0.30, 0.0)
    assert rx == 77 and list(np.flatnonzero(front)) == [1, 2, 3]
    assert list(np.flatnonzero(payloads)) == [1, 2, 3]
    behind, _, _ = heard_from(-0.25, 0.0)
    assert list(np.flatnonzero(behind)) == [5, 6]
    left = heard_from(0.062 + 0.18 * math.cos(math.radians(40)), 0.0485 + 0.18 * math.sin(math.radians(40)))[0]
    assert left[0] > 0 and left[0] == left.max() and left[4] == 0 and not left[5:].any()
    right = heard_from(0.062 + 0.18 * math.cos(math.radians(40)), -0.0485 - 0.18 * math.sin(math.radians(40)))[0]
    assert right[4] > 0 and right[4] == right.max() and right[0] == 0


def test_intensities_of_several_emitters_add_up():
    # The transmitter turns its back to the receiver: both rear LEDs (±2.95 cm) shine on the
    # receiver's centre sensor, 15 cm before the LEDs' line, 11.1° off their axes (inside 15°).
    tx = (0.15 + 0.0295, 0.0, 0.0)  # rear LEDs at x = 0.15 m, facing −x
    rx = pose_for_sensor(2, (0.0, 0.0), 0.0)  # centre sensor at the origin, facing +x
    rec = step(np.array([tx, rx]))
    assert sum(1 for link in rec.links.tolist() if link[3] == 2) == 2
    # Σ of two emitters at 15.2873 cm: 2949.85 (one alone would give 2273.21)
    assert rec.intensities[0, 2] == 2949


def test_enki_code_weights_by_angles():
    # LED turned 10° away from the sensor: w = cos(10°)^18 = 0.75915. At 20 cm:
    # Σ = 916.96 · 0.75915 / 19.8² = 1.77565, r = 4600 / (1/Σ + 1) = 2942.70
    noiseless = pc.ProxCommChannel(dataclasses.replace(pc.ENKI_CODE, noise=0.0), sensors=ONE_LED)
    rec = noiseless.step(facing(20.0, emitter_heading=math.radians(10)), [0], [5])
    assert rec.intensities[0, 2] == 2942
    # Receiver turned 10° instead: w = cos(10°)^9 = 0.87129, Σ = 2.03795, r = 3085.80
    rec = noiseless.step(facing(20.0, sensor_heading=math.pi + math.radians(10)), [0], [5])
    assert rec.intensities[0, 2] == 3085
    # Its wider emitter sector: 25° off is visible for enki_code (±30°), not for enki_doc (±15°).
    assert has_link(pc.ProxCommChannel(pc.ENKI_CODE).step(facing(20.0, emitter_heading=math.radians(25)), [0], [5]),
                    (0, 2, 1, 2))
    assert not has_link(step(facing(20.0, emitter_heading=math.radians(25))), (0, 2, 1, 2))


def test_enki_code_parameters():
    p = pc.model('enki_code')
    assert (p.range_cm, p.m, p.c, p.x0, p.threshold, p.ke, p.kr) == (48.0, 4600.0, 917.0, 0.2, 1400.0, 18.0, 9.0)
    assert p.emitter_aperture == pytest.approx(math.radians(30)) and p.receiver_aperture == 0.644
    assert pc.model('enki_doc') is pc.ENKI_DOC
    with pytest.raises(ValueError, match="unknown prox comm model 'enki' .*enki_doc, enki_code"):
        pc.model('enki')


# --- who takes part ---------------------------------------------------------------------------

def test_disabled_receivers_and_self_hear_nothing():
    poses = facing(10.0)
    assert len(step(poses, receivers=[True, False])) == 0
    assert len(step(poses, receivers=[False, True])) == 1
    both = step(poses, transmitters=(0, 1))
    assert sorted(zip(both.transmitter.tolist(), both.receiver.tolist())) == [(0, 1), (1, 0)]


def test_inputs_are_checked():
    channel = pc.ProxCommChannel()
    poses = facing(10.0)
    with pytest.raises(ValueError, match='11 bits'):
        channel.step(poses, [0], [2048])
    with pytest.raises(ValueError, match='at most once'):
        channel.step(poses, [0, 0], [1, 2])
    with pytest.raises(ValueError, match='out of range'):
        channel.step(poses, [2], [1])
    with pytest.raises(ValueError, match='receivers mask'):
        channel.step(poses, [0], [1], receivers=[True])
    with pytest.raises(ValueError, match='too far apart for the medium grid'):
        channel.step(np.array([[0.0, 0.0, 0.0], [1e12, 0.0, 0.0]]), [0], [1])
    with pytest.raises(ValueError, match="'bad': emitter_aperture"):
        pc.ProxCommParams('bad', 23.0, 2.0, 0.6, 4200.0, 0.02, 275.0)


# --- the compiled step is the numpy model ----------------------------------------------------

@pytest.mark.parametrize('params', [pc.ENKI_DOC, pc.ENKI_CODE], ids=lambda p: p.name)
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_pruned_step_equals_the_naive_all_pairs_model(params, seed):
    rng = np.random.default_rng(seed)
    # Dense crowds (25 per m², 20 cm apart), so that third robots often stand in the way.
    poses = pc.scatter_robots(120, density=25.0, rng=rng, jitter=0.015)
    senders = rng.choice(120, 80, replace=False)
    payloads = rng.integers(1, pc.PAYLOAD_MAX + 1, 80)
    receivers = rng.random(120) < 0.9
    walls = np.array([[(0.5, 0.5), (1.5, 1.2)]])
    channel = pc.ProxCommChannel(params, walls)
    fast = channel.step(poses, senders, payloads, receivers, rng=np.random.default_rng(7))
    slow = reference.naive_step(channel, poses, senders, payloads, receivers, rng=np.random.default_rng(7))
    assert len(fast) > 20
    assert fast.rows() == slow.rows()
    assert np.array_equal(fast.links, slow.links)
    # Occlusion matters in such a crowd: without third-robot hulls more is heard.
    tiny = pc.ProxCommChannel(params, walls, hull=rm.HULL * 1e-3)
    assert len(tiny.step(poses, senders, payloads, receivers).links) > len(fast.links)


def random_layout(rng, kind):
    """Crowds the compiled grid must handle: a dense jittered grid (occlusion everywhere), robots
    thrown anywhere in a square (overlaps included), and two far-apart clusters (empty cells).
    """
    if kind == 'crowd':
        return pc.scatter_robots(300, density=25.0, rng=rng, jitter=0.015)
    if kind == 'thrown':
        return np.column_stack([rng.uniform(0, 2.0, (200, 2)), rng.uniform(-np.pi, np.pi, 200)])
    near = pc.scatter_robots(80, density=12.0, rng=rng)
    far = pc.scatter_robots(80, density=12.0, rng=rng) + [40.0, -25.0, 0.0]
    return np.vstack([near, far])


@pytest.mark.parametrize('kind', ['crowd', 'thrown', 'clusters'])
@pytest.mark.parametrize('params', [pc.ENKI_DOC, pc.ENKI_CODE,
                                    dataclasses.replace(pc.ENKI_DOC, name='wide', threshold=0.0, ke=2.0, kr=3.0,
                                                        noise=40.0, emitter_aperture=1.2)],
                         ids=lambda p: p.name)
@pytest.mark.parametrize('seed', [3, 4])
def test_compiled_step_equals_the_numpy_step(params, kind, seed):
    """The compiled medium gives the receptions and links of the numpy step it replaced (issue #15),
    with occlusion, walls, battery gains (some 0, some above 1), disabled receivers and noise.
    """
    rng = np.random.default_rng(seed)
    poses = random_layout(rng, kind)
    n = len(poses)
    senders = rng.choice(n, 2 * n // 3, replace=False)
    payloads = rng.integers(1, pc.PAYLOAD_MAX + 1, len(senders))
    receivers = rng.random(n) < 0.85
    gains = rng.choice([0.0, 0.3, 0.8, 1.0, 1.5], n)
    lo, hi = poses[:, :2].min(axis=0), poses[:, :2].max(axis=0)
    walls = np.array([[lo, hi], [(lo[0], hi[1]), (hi[0], lo[1])]])
    compiled = pc.ProxCommChannel(params, walls)
    old = reference.ReferenceChannel(params, walls)
    new = compiled.step(poses, senders, payloads, receivers, rng=np.random.default_rng(seed), gains=gains)
    ref = old.step(poses, senders, payloads, receivers, rng=np.random.default_rng(seed), gains=gains)
    assert len(ref) > 20
    assert new.rows() == ref.rows()
    assert np.array_equal(new.links, ref.links)
    # The same random stream is left behind: the next draw agrees too.
    plain = compiled.step(poses, senders, payloads), old.step(poses, senders, payloads)
    assert plain[0].rows() == plain[1].rows()


def test_a_channel_kept_over_steps_frames_each_step_anew():
    """The node keeps one channel: its frame buffers, stamped per step, never serve a robot the
    sensors of where it stood in an earlier step, nor of a crowd of another size.
    """
    rng = np.random.default_rng(11)
    channel = pc.ProxCommChannel()
    poses = pc.scatter_robots(200, density=12.0, rng=rng)
    for n in (200, 200, 200, 150, 200):
        poses = poses.copy()
        poses[:, :2] += rng.normal(0.0, 0.03, (len(poses), 2))
        poses[:, 2] += rng.normal(0.0, 0.4, len(poses))
        crowd = poses[:n]
        senders = np.sort(rng.choice(n, n // 10, replace=False))
        payloads = rng.integers(1, pc.PAYLOAD_MAX + 1, len(senders))
        got = channel.step(crowd, senders, payloads)
        want = reference.ReferenceChannel().step(crowd, senders, payloads)
        assert len(want) > 5
        assert got.rows() == want.rows()
        assert np.array_equal(got.links, want.links)


@pytest.mark.parametrize('spread', [5.0, 400.0])
def test_the_grid_orders_the_robots_as_a_stable_sort_of_their_cells(spread):
    """Counted (a dense floor) or merge-sorted (a sparse one), the cells give the same order."""
    rng = np.random.default_rng(5)
    xy = np.ascontiguousarray(rng.uniform(0.0, spread, (500, 2)))
    xy[250:] = xy[:250]  # robots sharing cells, and positions
    cell = 0.2
    x0, y0, width, _, _, keys, order = pc._cells(xy, cell)
    ix = np.floor((xy[:, 0] - x0) / cell).astype(np.int64)
    iy = np.floor((xy[:, 1] - y0) / cell).astype(np.int64)
    expected = np.argsort((ix + 1) * width + iy + 1, kind='mergesort')
    assert np.array_equal(order, expected)
    assert np.array_equal(keys, ((ix + 1) * width + iy + 1)[expected])


def test_a_lone_pair_and_robots_at_the_grid_cell_border():
    channel = pc.ProxCommChannel()
    # 1 km away from a third robot: the grid spans it without a cell per metre in between.
    poses = np.vstack([facing(10.0), [(1000.0, -700.0, 0.0)]])
    assert step(poses).rows() == step(facing(10.0)).rows()
    # A receiver exactly one cell (the grid's side) away from its transmitter, and beyond reach.
    for gap in (channel.reach - 1e-9, channel.reach + 1e-6):
        poses = np.array([(0.0, 0.0, 0.0), (gap, 0.0, math.pi)])
        assert channel.step(poses, [0], [1]).rows() == reference.ReferenceChannel().step(poses, [0], [1]).rows()


def test_noise_is_deterministic_for_a_seed():
    channel = pc.ProxCommChannel(pc.ENKI_CODE)
    poses = pc.scatter_robots(60, rng=np.random.default_rng(3))
    args = (poses, np.arange(60), np.arange(1, 61))
    a = channel.step(*args, rng=np.random.default_rng(1)).rows()
    b = channel.step(*args, rng=np.random.default_rng(1)).rows()
    c = channel.step(*args, rng=np.random.default_rng(2)).rows()
    assert a == b and a != c


def test_compiled_sensor_frames_are_the_numpy_ones_bit_for_bit():
    poses = pc.scatter_robots(300, rng=np.random.default_rng(8))
    poses[:, 2] *= 7.0  # headings beyond ±π too
    for new, old in zip(pc.sensor_frames(poses), reference.sensor_frames(poses)):
        assert np.array_equal(new, old)


def test_step_valid_is_step_without_the_checks():
    poses = pc.scatter_robots(60, rng=np.random.default_rng(9))
    channel = pc.ProxCommChannel()
    tx = np.arange(0, 60, 3, dtype=np.int64)
    pay = (tx * 7 % 2047).astype(np.int64)
    rx = np.ones(60, dtype=bool)
    gains = np.linspace(0.2, 1.0, 60)
    a = channel.step(poses, tx, pay, rx, np.random.default_rng(1), gains)
    b = channel.step_valid(poses, tx, pay, rx, np.random.default_rng(1), gains)
    assert len(a.rx) > 10 and a.rows() == b.rows()
    with pytest.raises(ValueError):
        channel.step(poses, np.array([0, 0]), np.array([1, 2]))  # step still checks
