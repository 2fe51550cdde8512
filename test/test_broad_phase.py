# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The broad phase's neighbour grid finds what the search over all robots finds, in its order."""
import numpy as np
import pytest

from thymio_road.sim.broad_phase import grid_build, grid_near, grid_size, within, within_among

REACH = 0.3  # m, about the proximity sensors' reach between two centres


def _poses(n: int, seed: int, side: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    poses = np.zeros((n, 3))
    poses[:, :2] = rng.uniform(-side / 2, side / 2, (n, 2))
    poses[: n // 4, :2] = rng.normal(0.3, 0.05, (n // 4, 2))  # a jam: many robots in few cells
    return poses


def _grid(poses: np.ndarray, cell: float, size: int | None = None):
    n = len(poses)
    head = np.empty(size or grid_size(n), dtype=np.int64)
    chain = np.empty(n, dtype=np.int64)
    grid_build(poses, cell, head, chain)
    return head, chain


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_the_grids_neighbours_are_the_searchs_in_the_same_order(seed):
    poses = _poses(400, seed, 6.0)
    head, chain = _grid(poses, REACH)
    among, found, expected = (np.empty(400, dtype=np.int64) for _ in range(3))
    for i in range(400):
        m = grid_near(poses[i, 0], poses[i, 1], REACH, head, chain, among)
        assert len(set(among[:m].tolist())) == m  # each robot once
        got = within_among(i, poses, REACH ** 2, among, m, found)
        assert found[:got].tolist() == expected[:within(i, poses, REACH ** 2, expected)].tolist()


def test_robots_that_moved_less_than_the_cells_margin_since_the_grid_was_built_are_found():
    """The tick builds the grid once; the robots then move to the tick's time, at most the margin."""
    margin = 0.1
    before = _poses(1500, 4, 4.0)
    head, chain = _grid(before, REACH + margin)
    rng = np.random.default_rng(5)
    step = rng.normal(0, 1, (1500, 2))
    step *= (margin * rng.uniform(0, 1, 1500) / np.hypot(step[:, 0], step[:, 1]))[:, None]
    after = before.copy()
    after[:, :2] += step
    among, found, expected = (np.empty(1500, dtype=np.int64) for _ in range(3))
    for i in range(1500):
        m = grid_near(after[i, 0], after[i, 1], REACH + margin, head, chain, among)
        got = within_among(i, after, REACH ** 2, among, m, found)
        assert found[:got].tolist() == expected[:within(i, after, REACH ** 2, expected)].tolist()


def test_cells_that_share_a_bucket_are_walked_once():
    poses = _poses(200, 6, 3.0)
    head, chain = _grid(poses, REACH, size=16)  # 200 robots in 16 buckets: the nine cells collide
    among = np.empty(200, dtype=np.int64)
    for i in range(0, 200, 7):
        m = grid_near(poses[i, 0], poses[i, 1], REACH, head, chain, among)
        assert len(set(among[:m].tolist())) == m
        assert among[:m].tolist() == sorted(among[:m].tolist())


def test_the_search_over_all_robots_is_the_plain_distance_test():
    """The search over all robots (within, within_among with no list) against numpy's distances:
    the reference the grid is compared with above must itself be right.
    """
    poses = _poses(300, 7, 2.0)
    out = np.empty(300, dtype=np.int64)
    d2 = (poses[:, None, 0] - poses[None, :, 0]) ** 2 + (poses[:, None, 1] - poses[None, :, 1]) ** 2
    for i in range(300):
        expected = np.flatnonzero(d2[i] < REACH ** 2).tolist()
        assert out[:within(i, poses, REACH ** 2, out)].tolist() == expected
        assert out[:within_among(i, poses, REACH ** 2, np.zeros(0, dtype=np.int64), -1, out)].tolist() == expected
