# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Mobile group: random walk, broadcast vs flooding."""
import numpy as np
import pytest

from swarm_comm.simulation import compare_modes, MobileConfig, RandomWalk, run_mobile


def test_random_walk_stays_in_the_arena_without_overlap():
    rng = np.random.default_rng(0)
    walk = RandomWalk(7, 72.0, 1.0, 2.0, rng)
    for _ in range(300):
        walk.step(0.05, rng)
    assert walk.positions.min() >= 3.5 - 1e-9 and walk.positions.max() <= 68.5 + 1e-9
    d = np.hypot(*(walk.positions[:, None] - walk.positions[None]).transpose(2, 0, 1)) + np.eye(7) * 100
    assert d.min() > 6.0


def test_two_still_robots_face_to_face_always_get_the_message_intact():
    start = (np.array([[20.0, 36.0], [45.0, 36.0]]), np.array([0.0, np.pi]))
    out = run_mobile(MobileConfig(robots=2, speed_fraction=0.0), 8, np.random.default_rng(3), start=start)
    assert all(o.p_l == 0 and o.p_e == 0 for o in out)


def test_flooding_relays_along_a_chain_broadcast_does_not():
    # five still robots in a row, 15 cm apart, side sensors (±90°) along the row, 21 cm range (m_t,r = 75):
    # only neighbours hear each other, and the middle ones hide the far ones
    start = (np.array([[6.0 + 15.0 * i, 36.0] for i in range(5)]), np.full(5, np.pi / 2))
    kwargs = {'robots': 5, 'speed_fraction': 0.0, 'relative_threshold': 75, 'arena': 72.0}
    broadcast = run_mobile(MobileConfig(mode='broadcast', **kwargs), 10, np.random.default_rng(4), start=start)
    flooding = run_mobile(MobileConfig(mode='flooding', **kwargs), 10, np.random.default_rng(4), start=start)
    assert np.mean([o.p_l for o in flooding]) < np.mean([o.p_l for o in broadcast])
    assert max(o.transmissions for o in broadcast) == 1
    assert max(o.transmissions for o in flooding) > 1


@pytest.mark.parametrize('kwargs,field', [({'robots': 1}, 'robots'), ({'mode': 'x'}, 'mode'),
                                          ({'speed_fraction': 2}, 'speed_fraction'), ({'bit_rate': 0}, 'bit_rate')])
def test_bad_config_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        MobileConfig(**kwargs)


@pytest.mark.slow
def test_flooding_gains_over_broadcast_grow_with_the_group():
    # Fig. 16b: with 2 robots flooding has nobody to relay to (the modes are the same up to the echo);
    # with 7 robots it reaches clearly more of the group (95 % interval over paired runs above 0)
    two = compare_modes(2, 6, 5, seed=11)
    seven = compare_modes(7, 6, 5, seed=11)
    assert two.gain - two.gain_ci <= 0.0 <= two.gain + two.gain_ci
    assert seven.gain - seven.gain_ci > 0.0
    assert seven.gain > two.gain
    assert seven.transmissions > 3 and seven.flooding < seven.broadcast
