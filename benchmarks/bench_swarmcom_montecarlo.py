"""Throughput of the threshold Monte Carlo (synthetic observations per second) and the paper's full size.

The paper evaluated 1000 × 720 × 720 = 5.184·10^8 synthetic observations per sensor (Sect. 4.2.2).
This script times the two stages (channel model, and noise integration of eq. 32) and the whole
estimate on a quantile grid, then extrapolates to the paper's grid. Plain script: python benchmarks/bench_swarmcom_montecarlo.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swarm_comm.channel import ChannelParameters  # noqa: E402
from swarm_comm.detector import PoseDistribution, estimate_threshold, observe, s1_min_tail_sum  # noqa: E402
from swarm_comm.geometry import EPuckGeometry  # noqa: E402

PAPER_OBSERVATIONS = 1000 * 720 * 720


def rate(label: str, count: int, seconds: float) -> float:
    per_second = count / seconds
    print(f'{label:<34} {count:>10,d} obs in {seconds:7.2f} s = {per_second:>12,.0f} obs/s')
    return per_second


def main() -> None:
    geometry, params, poses = EPuckGeometry(), ChannelParameters(), PoseDistribution()
    rng = np.random.default_rng(0)
    count = 200_000
    distance, polar, orientation = poses.sample(count, rng)

    started = time.perf_counter()
    means = np.concatenate([observe(distance[i:i + 16384], polar[i:i + 16384], orientation[i:i + 16384],
                                    geometry, params) for i in range(0, count, 16384)])
    model_rate = rate('channel model (8x8 pairs)', count, time.perf_counter() - started)

    m_values = np.arange(4063, params.m_sup)
    started = time.perf_counter()
    for i in range(0, count, 16384):
        s1_min_tail_sum(means[i:i + 16384], m_values, params)
    noise_rate = rate('noise integration (eq. 32 tails)', count, time.perf_counter() - started)

    grid = (100, 72, 72)
    started = time.perf_counter()
    estimate = estimate_threshold(grid=grid)
    elapsed = time.perf_counter() - started
    total_rate = rate(f'whole estimate, grid {grid}', estimate.observations, elapsed)
    print(f'threshold on that grid: m_t = {estimate.threshold} (paper 4075)')
    print(f'model share of the time: {total_rate / model_rate:.2f}; noise share: {total_rate / noise_rate:.2f}')
    full = PAPER_OBSERVATIONS / total_rate
    print(f'paper grid 1000x720x720 = {PAPER_OBSERVATIONS:.4g} observations: {full:,.0f} s '
          f'= {full / 3600:.2f} h on one core here ({full / 3600 / 2:.2f} h if split over 2 cores)')


if __name__ == '__main__':
    main()
