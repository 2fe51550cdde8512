# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""n_C (paper Sect. 6.2.6, Fig. 20a) under each model reading: peak, its robot count, and n_C at 272 robots.

Produces the candidate table of docs/swarmcom.md ("n_C: readings measured"). Readings selectable in
``swarm_comm`` (sensor layout × channel rule × occlusion) run through ``simulate_scalability``; three
readings that contradict the paper's text are probed here only, by swapping the per-path gain function:

* ``literal``: eqs. 12 and 14 as printed, α = θ_i − ∠(p_d − p_e) with the sensor's *local* angle θ_i
  (the sensor's facing does not turn with its robot, while its position does; contradicts Sect. 3.4.3,
  where sensors 1 facing each other have α = β = 0). Its range threshold is that of the same model.
* ``abs-lobe``: h_e = |cos α|^7 and h_d = |cos β|^3 on the whole circle (contradicts "h_e(α) = 0 for all
  α ∉ [−π/2, π/2]" of Sect. 3.1).
* ``bidirectional``: the central robot must also receive the robot (the paper counts channels "established
  by the central robot", which transmits).

Plain script, a few minutes per reading on one core:
    python benchmarks/bench_swarmcom_nc_readings.py [--trials 100] [--counts 40,50,60,70,80,272] [--only NAME]
"""
from __future__ import annotations

import argparse
from contextlib import contextmanager
import json
from pathlib import Path
import sys
import time

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import swarm_comm.channel as channel_module  # noqa: E402
from swarm_comm.channel import ChannelParameters, gains_from, mean_measurement, received_intensity  # noqa: E402
from swarm_comm.geometry import epuck_geometry, EPuckGeometry, to_world  # noqa: E402
from swarm_comm.scalability import place_robots, range_threshold, simulate_scalability  # noqa: E402

P = ChannelParameters()


def _variant_pair_gains(literal: bool, abs_lobe: bool):
    def pair_gains(tx_position, tx_heading, rx_positions, rx_headings, geometry, params):
        emitters = to_world(geometry.emitters_local(), tx_position, tx_heading)
        detectors = to_world(geometry.detectors_local(), rx_positions, rx_headings)
        count = rx_positions.shape[0]
        if literal:
            theta_e = geometry.sensor_angles
            theta_d = np.broadcast_to(geometry.sensor_angles, (count, geometry.sensor_count))
        else:
            theta_e = tx_heading + geometry.sensor_angles
            theta_d = rx_headings[:, None] + geometry.sensor_angles[None, :]
        dx = detectors[:, None, :, 0] - emitters[None, :, None, 0]
        dy = detectors[:, None, :, 1] - emitters[None, :, None, 1]
        squared = np.maximum(dx * dx + dy * dy, 1e-18)
        inverse = 1.0 / np.sqrt(squared)
        cos_a = (np.cos(theta_e)[None, :, None] * dx + np.sin(theta_e)[None, :, None] * dy) * inverse
        cos_b = -(np.cos(theta_d)[:, None, :] * dx + np.sin(theta_d)[:, None, :] * dy) * inverse
        if abs_lobe:
            cos_a, cos_b = np.abs(cos_a), np.abs(cos_b)
        return (channel_module.cosine_lobe(cos_a, params.emitter_exponent)
                * channel_module.cosine_lobe(cos_b, params.detector_exponent)
                * channel_module.medium_attenuation(np.sqrt(squared), params))
    return pair_gains


@contextmanager
def gain_variant(literal: bool = False, abs_lobe: bool = False):
    original = channel_module._pair_gains
    if literal or abs_lobe:
        channel_module._pair_gains = _variant_pair_gains(literal, abs_lobe)
    try:
        yield
    finally:
        channel_module._pair_gains = original


def facing_threshold(geometry: EPuckGeometry, radius: float = 61.0) -> float:
    """What robot 1 measures from robot 0, facing each other ``radius`` cm apart, under the active gains."""
    gains = gains_from(0, np.array([[0.0, 0.0], [radius, 0.0]]), np.array([0.0, np.pi]), geometry, P)
    return float(mean_measurement(received_intensity(gains), P)[1].min())


def reverse_gains(positions: np.ndarray, headings: np.ndarray, g: EPuckGeometry) -> np.ndarray:
    """h_c from every robot's emitters to robot 0's detectors, (N, D), third bodies occluding."""
    emitters = to_world(g.emitters_local(), positions, headings)                 # (N, E, 2)
    detectors = to_world(g.detectors_local(), positions[0], headings[0])         # (D, 2)
    theta_e = headings[:, None] + g.sensor_angles[None, :]
    theta_d = headings[0] + g.sensor_angles
    dx = detectors[None, None, :, 0] - emitters[:, :, None, 0]
    dy = detectors[None, None, :, 1] - emitters[:, :, None, 1]
    squared = np.maximum(dx * dx + dy * dy, 1e-18)
    inverse = 1.0 / np.sqrt(squared)
    cos_a = (np.cos(theta_e)[:, :, None] * dx + np.sin(theta_e)[:, :, None] * dy) * inverse
    cos_b = -(np.cos(theta_d)[None, None, :] * dx + np.sin(theta_d)[None, None, :] * dy) * inverse
    gain = (channel_module.cosine_lobe(cos_a, P.emitter_exponent)
            * channel_module.cosine_lobe(cos_b, P.detector_exponent)
            * channel_module.medium_attenuation(np.sqrt(squared), P))
    gain[0] = 0.0
    live = np.argwhere(gain > 0.0)
    if live.size and positions.shape[0] > 2:
        blocked = channel_module._blocked(emitters[live[:, 0], live[:, 1]], detectors[live[:, 2]], positions, 0,
                                          live[:, 0], g.body_radius)
        gain[tuple(live[blocked].T)] = 0.0
    return gain.sum(axis=1)


def bidirectional(counts, trials, rng, g, rule):
    threshold = 4075.0 if rule == 'detect' else range_threshold(61.0, g, P)
    rows = []
    for count in counts:
        n = []
        for _ in range(trials):
            positions = place_robots(count, 61.0, rng)
            headings = rng.uniform(-np.pi, np.pi, positions.shape[0])
            forward = mean_measurement(received_intensity(gains_from(0, positions, headings, g, P)), P).min(1)
            back = mean_measurement(received_intensity(reverse_gains(positions, headings, g)), P).min(1)
            n.append(int(((forward < threshold) & (back < threshold))[1:].sum()))
        rows.append((count, float(np.mean(n)), 1.96 * float(np.std(n, ddof=1)) / np.sqrt(trials)))
    return rows


READINGS = {
    # name: (layout, channel rule, occlusion, gain variant)
    'driver/detect': ('webots-driver', 'detect', 'paths', None),
    'driver/range': ('webots-driver', 'range', 'paths', None),
    'proto/detect': ('webots-proto', 'detect', 'paths', None),
    'proto/range (default)': ('webots-proto', 'range', 'paths', None),
    'enki/detect': ('enki', 'detect', 'paths', None),
    'enki/range': ('enki', 'range', 'paths', None),
    'proto/detect/centre': ('webots-proto', 'detect', 'centre', None),
    'proto/range/centre': ('webots-proto', 'range', 'centre', None),
    'driver/detect/literal': ('webots-driver', 'detect', 'paths', 'literal'),
    'driver/range/literal': ('webots-driver', 'range', 'paths', 'literal'),
    'driver/detect/abs-lobe': ('webots-driver', 'detect', 'paths', 'abs-lobe'),
    'proto/detect/bidirectional': ('webots-proto', 'detect', 'paths', 'bidirectional'),
    'proto/range/bidirectional': ('webots-proto', 'range', 'paths', 'bidirectional'),
}


def run(name: str, counts: list[int], trials: int, seed: int) -> dict:
    layout, rule, occlusion, variant = READINGS[name]
    g = epuck_geometry(layout)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    if variant == 'bidirectional':
        rows = bidirectional(counts, trials, rng, g, rule)
    else:
        with gain_variant(literal=variant == 'literal', abs_lobe=variant == 'abs-lobe'):
            threshold = None if rule == 'detect' or variant is None else facing_threshold(g)
            points = simulate_scalability(counts, trials, rng, geometry=g, params=P, channel=rule,
                                          occlusion=occlusion, threshold=threshold)
        rows = [(p.robots, p.mean_channels, p.ci95) for p in points]
    peak = max(rows, key=lambda row: row[1])
    densest = rows[-1]
    return {'reading': name, 'trials': trials, 'seconds': round(time.perf_counter() - started, 1),
            'peak': [peak[0], round(peak[1], 2), round(peak[2], 2)],
            'densest': [densest[0], round(densest[1], 2), round(densest[2], 2)],
            'points': [[c, round(m, 2), round(ci, 2)] for c, m, ci in rows]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--trials', type=int, default=100)
    parser.add_argument('--counts', default='40,50,60,70,80,272')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--only', choices=tuple(READINGS), action='append')
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(',')]
    for name in args.only or READINGS:
        print(json.dumps(run(name, counts, args.trials, args.seed)), flush=True)


if __name__ == '__main__':
    main()
