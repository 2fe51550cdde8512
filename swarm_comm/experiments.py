# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The paper's experiments as functions that write CSV tables and PNG figures into a directory.

threshold: Fig. 9 (m_t from the model); static: Figs. 10–13 (P_e, P_l against distance, fixed and
dynamic detectors, codes, ranges); mobile: Figs. 16–18 (broadcast vs flooding, speeds, ranges);
scalability: Fig. 20a (n_C against density). Each returns a small summary dict (also written as JSON).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
import time

import numpy as np

from thymio_road.map import atomic

from .coding import CODES
from .detector import DetectorConfig, estimate_threshold
from .scalability import DEFAULT_CHANNEL, DEFAULT_LAYOUT, simulate_scalability
from .simulation import _mean_ci, MobileConfig, run_mobile
from .static_link import communication_range, error_free_probability, reliable_range, simulate_link

FIXED_THRESHOLDS = (5, 10, 25, 50, 100, 250, 500, 750, 1000, 2000)   # Sect. 5.2
DYNAMIC_THRESHOLDS = (5, 10, 25, 75)                                   # Sect. 5.3, 6.2.4
PAPER_RANGES = {75: 21.0, 25: 33.0, 10: 45.0}                          # Sect. 6.2.4


def _pyplot():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with atomic.atomic_path(path) as tmp, tmp.open('w', newline='') as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _write_summary(out: Path, name: str, summary: dict) -> dict:
    atomic.write_text(out / f'{name}_summary.json', json.dumps(summary, indent=2, default=float) + '\n')
    return summary


def _prepare(out: Path | str) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def run_threshold(out: Path | str, seed: int, samples: int = 200_000,
                  grid: tuple[int, int, int] | None = None) -> dict:
    """Fig. 9: m_t from the channel model (eq. 32)."""
    out = _prepare(out)
    started = time.perf_counter()
    estimate = estimate_threshold(grid=grid, samples=samples, rng=np.random.default_rng(seed))
    elapsed = time.perf_counter() - started
    _write_csv(out / 'threshold.csv', ['m', 'p_s0_cdf', 'p_s1_tail'],
               [[int(m), a, b] for m, a, b in zip(estimate.m_values, estimate.s0_cdf, estimate.s1_tail)])
    plt = _pyplot()
    fig, (ax_hist, ax_t) = plt.subplots(1, 2, figsize=(11, 4))
    levels = np.arange(estimate.min_histogram.size)
    for j, hist in enumerate(estimate.sensor_histogram):
        ax_hist.semilogy(levels, np.maximum(hist / estimate.observations, 1e-9), lw=0.8, label=f'sensor {j + 1}')
    ax_hist.semilogy(levels, np.maximum(estimate.min_histogram / estimate.observations, 1e-9), 'k:', lw=1.5,
                     label='min over sensors')
    ax_hist.set(xlabel='measurement m (noise-free)', ylabel='P(M = m | s1)', ylim=(1e-7, 1), title='Fig. 9a')
    ax_hist.legend(fontsize=7)
    ax_t.plot(estimate.m_values, estimate.s0_cdf, label='P(M ≤ m | s0)')
    ax_t.plot(estimate.m_values, estimate.s1_tail, label='P(M > m | s1)')
    ax_t.axvline(estimate.threshold, color='k', ls='--', label=f'm_t = {estimate.threshold}')
    ax_t.set(xlabel='m', ylabel='probability', title='Fig. 9c: decision threshold (eq. 32)')
    ax_t.legend()
    fig.tight_layout()
    atomic.save_figure(fig, out / 'threshold.png', dpi=120)
    plt.close(fig)
    return _write_summary(out, 'threshold', {
        'threshold': estimate.threshold, 'relative_threshold': estimate.relative_threshold,
        'paper_threshold': 4075, 'observations': estimate.observations, 'seconds': elapsed,
        'observations_per_second': estimate.observations / elapsed})


def run_static(out: Path | str, seed: int, messages: int = 200, distances: np.ndarray | None = None,
               bit_rate: float = 310.0, time_constant: float = 0.0) -> dict:
    """Figs. 10–13: two static facing robots, P_e and P_l against distance."""
    out = _prepare(out)
    rng = np.random.default_rng(seed)
    distances = np.arange(7, 108, 1.0) if distances is None else np.asarray(distances, dtype=float)
    detectors = ([DetectorConfig(t, dynamic=False) for t in FIXED_THRESHOLDS]
                 + [DetectorConfig(t, dynamic=True) for t in DYNAMIC_THRESHOLDS])
    names = [f"{'dynamic' if d.dynamic else 'fixed'}_{int(d.relative_threshold)}" for d in detectors]
    started = time.perf_counter()
    rows, by_detector = [], {name: [] for name in names}
    coded = {}
    for distance in distances:
        for stats, name in zip(simulate_link(distance, detectors, CODES['15,15'], messages, rng,
                                             bit_rate=bit_rate, time_constant=time_constant), names):
            by_detector[name].append(stats)
            rows.append([distance, name, '15,15', stats.messages, stats.received, stats.framed, stats.p_l,
                         stats.p_misframed, stats.p_e, stats.block_error_rate])
        for code_name in ('15,11', '15,1'):  # the codes, with the default dynamic detector
            stats = simulate_link(distance, [DetectorConfig(5, dynamic=True)], CODES[code_name], messages, rng,
                                  bit_rate=bit_rate, time_constant=time_constant)[0]
            coded.setdefault(code_name, []).append(stats)
            rows.append([distance, 'dynamic_5', code_name, stats.messages, stats.received, stats.framed, stats.p_l,
                         stats.p_misframed, stats.p_e, stats.block_error_rate])
    elapsed = time.perf_counter() - started
    _write_csv(out / 'static.csv', ['distance_cm', 'detector', 'code', 'messages', 'received', 'framed', 'p_l',
                                    'p_misframed', 'p_e', 'block_error_rate'], rows)
    p_e_dyn = np.array([s.p_e for s in by_detector['dynamic_5']])
    p_e_fix = np.array([s.p_e for s in by_detector['fixed_5']])
    pf_rows = [[d, pe] + [1.0 - float(error_free_probability(pe, c)) for c in (0, 1, 7)]
               for d, pe in zip(distances, p_e_dyn)]
    _write_csv(out / 'static_coding.csv', ['distance_cm', 'p_e', '1-P_f(c=0)', '1-P_f(c=1)', '1-P_f(c=7)'], pf_rows)

    ranges = {name: {'loss_range_cm': communication_range(stats), 'reliable_range_cm': reliable_range(stats)}
              for name, stats in by_detector.items()}
    both = ~np.isnan(p_e_dyn) & ~np.isnan(p_e_fix)
    dyn_better = both & (p_e_dyn < p_e_fix)
    first_not_better = distances[both & ~dyn_better]
    _plot_static(out, distances, by_detector, coded, pf_rows)
    return _write_summary(out, 'static', {
        'messages_per_distance': messages, 'bit_rate': bit_rate, 'time_constant': time_constant,
        'seconds': elapsed, 'ranges': ranges,
        'paper_ranges': {f'dynamic_{k}': v for k, v in PAPER_RANGES.items()},
        'dynamic_below_fixed_distances': int(dyn_better.sum()), 'compared_distances': int(both.sum()),
        'dynamic_not_below_fixed_from_cm': float(first_not_better.min()) if first_not_better.size else None,
        'mean_misframed_fixed_5': float(np.nanmean([s.p_misframed for s in by_detector['fixed_5']])),
    })


def _plot_static(out: Path, distances, by_detector, coded, pf_rows) -> None:
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for name, stats in by_detector.items():
        if name.startswith('fixed'):
            axes[0, 0].semilogy(distances, [max(s.p_e, 1e-5) for s in stats], label=name, lw=0.9)
        else:
            axes[0, 1].semilogy(distances, [max(s.p_e, 1e-5) for s in stats], label=name, lw=0.9)
        axes[1, 0].plot(distances, [s.p_l for s in stats], label=name, lw=0.8)
    axes[0, 1].semilogy(distances, [max(s.p_e, 1e-5) for s in by_detector['fixed_5']], 'k:', label='fixed_5')
    axes[0, 0].set(title='Fig. 10: fixed threshold m_t,r (P_e, floor 1e-5)', xlabel='distance (cm)', ylabel='P_e')
    axes[0, 1].set(title='Fig. 11: dynamic threshold (eq. 36)', xlabel='distance (cm)', ylabel='P_e')
    axes[1, 0].set(title='P_l (eq. 35)', xlabel='distance (cm)', ylabel='P_l')
    pf = np.array(pf_rows)
    for column, c in zip((2, 3, 4), (0, 1, 7)):
        axes[1, 1].semilogy(pf[:, 0], np.maximum(pf[:, column], 1e-20), label=f'predicted 1-P_f, c={c} (eq. 34)')
    for code_name, stats in coded.items():
        axes[1, 1].semilogy(distances, [max(s.block_error_rate, 1e-20) for s in stats], 'o', ms=2,
                            label=f'simulated block errors [{code_name}]')
    axes[1, 1].set(title='Fig. 13: coding, dynamic_5 (floor 1e-20)', xlabel='distance (cm)', ylabel='1 - P_f')
    for ax in axes.ravel():
        ax.legend(fontsize=6)
    fig.tight_layout()
    atomic.save_figure(fig, out / 'static.png', dpi=120)
    plt.close(fig)


def run_mobile_experiments(out: Path | str, seed: int, messages: int = 25,
                           robots: tuple[int, ...] = (2, 3, 4, 5, 6, 7), repetitions: int = 20) -> dict:
    """Figs. 16–18: broadcast vs flooding (m_t,r = 10), speeds (flooding) and ranges (flooding).

    Each configuration is ``repetitions`` independent runs of ``messages`` back-to-back messages; run r
    with n robots starts from the same random placement in every variant (seed [seed, n, r]), so
    broadcast and flooding are compared pairwise. Means come with 95 % Student-t intervals over runs.
    """
    if int(repetitions) != repetitions or repetitions < 2:
        raise ValueError(f'repetitions must be an integer >= 2, got {repetitions!r}')
    out = _prepare(out)
    variants = [('mode', 'broadcast', MobileConfig(mode='broadcast')), ('mode', 'flooding', MobileConfig())]
    variants += [('speed', f'{k}/3', MobileConfig(speed_fraction=k / 3)) for k in (1, 2)]
    variants += [('range', f'{PAPER_RANGES[t]:.0f}cm (m_t,r={t})', MobileConfig(relative_threshold=t))
                 for t in (75, 25)]
    started = time.perf_counter()
    rows, table, per_run = [], {}, {}
    for study, label, base in variants:
        for n in robots:
            config = MobileConfig(**{**base.__dict__, 'robots': n})
            run_p_l, p_e_all, transmissions = np.empty(repetitions), [], []
            for r in range(repetitions):
                outcomes = run_mobile(config, messages, np.random.default_rng([seed, n, r]))
                run_p_l[r] = np.mean([o.p_l for o in outcomes])
                p_e_all += [o.p_e for o in outcomes]
                transmissions += [o.transmissions for o in outcomes]
            per_run[(study, label, n)] = run_p_l
            p_l, p_l_ci = _mean_ci(run_p_l)
            p_e_values = np.array(p_e_all)
            valid = p_e_values[~np.isnan(p_e_values)]
            p_e = float(valid.mean()) if valid.size else float('nan')
            error_free = float(np.mean(valid == 0)) if valid.size else float('nan')
            rows.append([study, label, n, repetitions, messages, p_l, p_l_ci, p_e, error_free,
                         float(np.mean(transmissions))])
            table.setdefault(f'{study}:{label}', {})[n] = {'p_l': p_l, 'p_l_ci95': p_l_ci, 'p_e': p_e,
                                                           'error_free': error_free}
    elapsed = time.perf_counter() - started
    gains = {}
    for n in robots:
        gain, gain_ci = _mean_ci(per_run[('mode', 'broadcast', n)] - per_run[('mode', 'flooding', n)])
        gains[n] = {'gain': gain, 'gain_ci95': gain_ci}
    _write_csv(out / 'mobile.csv', ['study', 'variant', 'robots', 'runs', 'messages_per_run', 'p_l', 'p_l_ci95',
                                    'p_e', 'error_free_fraction', 'transmissions_per_message'], rows)
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, study, title in zip(axes, ('mode', 'speed', 'range'),
                                ('Fig. 16b: broadcast vs flooding', 'Fig. 17b: speed (flooding)',
                                 'Fig. 18b: range (flooding)')):
        for key, values in table.items():
            if key.startswith(study + ':') or (study != 'mode' and key == 'mode:flooding'):
                ax.errorbar(list(values), [v['p_l'] for v in values.values()],
                            yerr=[v['p_l_ci95'] for v in values.values()], fmt='o-', capsize=3,
                            label=key.split(':', 1)[1] if key.startswith(study) else 'flooding, 3/3, 45 cm')
        ax.set(title=title, xlabel='robots', ylabel='P_l (95 % CI over runs)')
        ax.legend(fontsize=7)
    fig.tight_layout()
    atomic.save_figure(fig, out / 'mobile.png', dpi=120)
    plt.close(fig)
    return _write_summary(out, 'mobile', {
        'runs_per_configuration': repetitions, 'messages_per_run': messages, 'seconds': elapsed, 'table': table,
        'flooding_gain_by_robots': gains,
        'flooding_significantly_better_for_robots': [n for n in robots if gains[n]['gain'] - gains[n]['gain_ci95'] > 0],
        'flooding_significantly_worse_for_robots': [n for n in robots if gains[n]['gain'] + gains[n]['gain_ci95'] < 0]})


def plot_scalability(path: Path, density, mean, std, reading: str) -> None:
    """Fig. 20a: n_C (mean ± std) against density, with the paper's ≈ 15 peak and 6 at the densest packing."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    mean, std = np.asarray(mean), np.asarray(std)
    ax.plot(density, mean, 'o-', label='simulated')
    ax.fill_between(density, mean - std, mean + std, alpha=0.3)
    for level, where, text in ((15, 0.98, 'paper: peak ≈ 15'), (6, 0.6, 'paper: densest packing 6')):
        ax.axhline(level, color='grey', linestyle='--', linewidth=0.8)
        ax.text(where, level + 0.3, text, ha='right', va='bottom', fontsize=8, color='grey',
                transform=ax.get_yaxis_transform())
    ax.set(xlabel='robot density (robots/m²)', ylabel='channels n_C (mean ± std)',
           title=f'Fig. 20a: n_C against density\n({reading})')
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=120)
    plt.close(fig)


def run_scalability(out: Path | str, seed: int, trials: int = 100,
                    counts: tuple[int, ...] | None = None, radius: float = 61.0,
                    channel: str = DEFAULT_CHANNEL, occlusion: str = 'paths', layout: str = DEFAULT_LAYOUT) -> dict:
    """Fig. 20a: n_C against robot density within a 61 cm range, up to 272 robots."""
    out = _prepare(out)
    counts = counts or (1, 2, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 100, 120, 140, 160, 180, 200, 220, 240,
                        260, 272)
    started = time.perf_counter()
    points = simulate_scalability(list(counts), trials, np.random.default_rng(seed), radius=radius,
                                  channel=channel, occlusion=occlusion, layout=layout)
    elapsed = time.perf_counter() - started
    _write_csv(out / 'scalability.csv', ['robots', 'density_per_m2', 'mean_channels', 'std_channels', 'ci95',
                                         'trials'],
               [[p.robots, p.density, p.mean_channels, p.std_channels, p.ci95, p.trials] for p in points])
    density = [p.density for p in points]
    mean = np.array([p.mean_channels for p in points])
    std = np.array([p.std_channels for p in points])
    plot_scalability(out / 'scalability.png', density, mean, std, f'{layout}, {channel}, occlusion {occlusion}')
    peak = int(np.argmax(mean))
    return _write_summary(out, 'scalability', {
        'trials': trials, 'seconds': elapsed, 'layout': layout, 'channel': channel, 'occlusion': occlusion,
        'peak_channels': float(mean[peak]), 'peak_ci95': points[peak].ci95, 'peak_robots': points[peak].robots,
        'peak_density': float(density[peak]), 'densest_channels': float(mean[-1]),
        'densest_ci95': points[-1].ci95, 'densest_robots': points[-1].robots,
        'densest_density': float(density[-1]), 'paper_peak': 15, 'paper_densest': 6})
