# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Write an analysis as a report folder: index.html, metrics.json, CSV tables and PNG figures.

The HTML page is self-contained apart from the PNGs beside it; it says first what could not be
computed and why, then the per-robot table, the figures and the detailed tables.
"""
from __future__ import annotations

import csv
import html
import json
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use('Agg')
from matplotlib.collections import LineCollection  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from thymio_road.analysis import metrics as m  # noqa: E402
from thymio_road.analysis.bag import Recording  # noqa: E402
from thymio_road.analysis.core import Analysis  # noqa: E402
from thymio_road.analysis.mapsource import MapSource  # noqa: E402
from thymio_road.analysis.style import state_colour, STATE_COLOURS, TRAFFIC_LIGHT  # noqa: E402

#: Points drawn per robot path (paths are subsampled beyond this).
MAX_PATH_POINTS = 6000
#: Rows shown per table in the HTML page (the CSV files have them all).
MAX_ROWS = 200

ROBOT_COLUMNS = [
    ('robot', 'robot'), ('distance_m', 'distance (m)'), ('time_on_road_s', 'on road (s)'),
    ('on_road_fraction', 'on road'), ('road_losses', 'road losses'),
    ('final_state', 'final state'), ('state_changes', 'state changes'),
    ('contacts', 'contacts'), ('near_misses', 'near misses'), ('passages', 'passages'),
    ('laps_timed', 'laps timed'), ('mean_lap_time_s', 'mean lap (s)'),
    ('barcode_reads', 'barcode reads'), ('barcode_errors', 'barcode errors'),
    ('decisions', 'decisions'), ('waits_at_lights', 'waits at lights'),
    ('wait_at_lights_s', 'waiting (s)'), ('ir_received', 'IR received'),
]


def write_report(analysis: Analysis, rec: Recording, source: MapSource, out: Path) -> dict[str, Path]:
    """Write every output into `out`; returns them by name."""
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    files['metrics.json'] = out / 'metrics.json'
    files['metrics.json'].write_text(json.dumps(analysis.to_json(), indent=2, default=_json_default) + '\n')
    files['robots.csv'] = _csv(out / 'robots.csv', _flat_robot_rows(analysis.robots))
    for name, rows in (('episodes.csv', analysis.episodes), ('laps.csv', analysis.laps),
                       ('barcodes.csv', analysis.barcode_reads), ('decisions.csv', analysis.decisions),
                       ('waits.csv', analysis.waits), ('ir.csv', analysis.ir)):
        if rows:
            files[name] = _csv(out / name, rows)
    files.update(_figures(analysis, rec, source, out))
    files['index.html'] = out / 'index.html'
    files['index.html'].write_text(_html(analysis, files), encoding='utf-8')
    return files


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def _flat_robot_rows(robots: list[dict]) -> list[dict]:
    states = sorted({s for r in robots for s in r.get('time_per_state_s', {})},
                    key=lambda s: (list(STATE_COLOURS).index(s) if s in STATE_COLOURS else 99, s))
    modes = sorted({mode for r in robots for mode in r.get('time_per_mode_s', {})})
    rows = []
    for r in robots:
        row = {k: v for k, v in r.items() if k not in ('time_per_state_s', 'time_per_mode_s')}
        for s in states:
            row[f'time_{s}_s'] = r.get('time_per_state_s', {}).get(s, 0.0 if 'time_per_state_s' in r else None)
        for mode in modes:
            row[f'mode_{mode}_s'] = r.get('time_per_mode_s', {}).get(mode, 0.0 if 'time_per_mode_s' in r else None)
        rows.append(row)
    return rows


def _csv(path: Path, rows: Sequence[dict]) -> Path:
    columns: list[str] = []
    for row in rows:
        for k in row:
            if k not in columns:
                columns.append(k)
    with path.open('w', newline='') as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in columns})
    return path


def _cell(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, default=_json_default)
    return '' if value is None else value


# --- figures -------------------------------------------------------------------------------------

def _map_background(ax: Any, source: MapSource) -> tuple[float, float]:
    if source.road_map is not None:
        from thymio_road.analysis.figures import map_image
        road_map = source.road_map
        w, h = road_map.width, road_map.height
        ax.imshow(map_image(road_map), cmap='gray', vmin=0, vmax=1, origin='lower',
                  extent=(0, w, 0, h), interpolation='bilinear')
        return w, h
    if source.on_road is not None:
        rows, cols = source.on_road.shape
        w, h = cols * source.resolution, rows * source.resolution
        ox, oy = source.origin
        step = max(1, int(np.ceil(max(rows, cols) / 1600)))
        ax.imshow(~source.on_road[::step, ::step], cmap='gray', vmin=0, vmax=1.6, origin='lower',
                  extent=(ox, ox + w, oy, oy + h))
        return w, h
    return 0.0, 0.0


def _figures(analysis: Analysis, rec: Recording, source: MapSource, out: Path) -> dict[str, Path]:
    files = {}
    if rec.truth:
        files['paths.png'] = _paths_figure(analysis, rec, source, out / 'paths.png')
    if analysis.timelines:
        files['states.png'] = _states_figure(analysis, out / 'states.png')
    timeline = _timeline_figure(analysis, rec, out / 'timeline.png')
    if timeline is not None:
        files['timeline.png'] = timeline
    if analysis.moving:
        files['moving.png'] = _moving_figure(analysis, out / 'moving.png')
    return files


def _moving_figure(analysis: Analysis, path: Path) -> Path:
    """Robots moving over the run (moved at least 1 cm in the last 10 s), gridlock marked."""
    t = [a for a, _ in analysis.moving]
    n = [b for _, b in analysis.moving]
    fig, ax = plt.subplots(figsize=(9, 2.8))
    ax.step(t, n, where='post', color='tab:blue')
    total = max(n, default=0)
    stalls = analysis.stalls
    if stalls.get('gridlock'):
        ax.axvline(stalls['gridlock_at_s'], color='tab:red', linestyle='--',
                   label=f"network stopped ({stalls['gridlock_at_s']:.0f} s)")
        ax.legend(loc='upper right')
    ax.set_xlim(t[0] if t else 0, t[-1] if t else 1)
    ax.set_ylim(-0.2, max(total, 1) + 0.5)
    ax.set_xlabel('simulated time (s)')
    ax.set_ylabel('robots moving')
    ax.set_title('Robots that moved at least 1 cm in the last 10 s')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _paths_figure(analysis: Analysis, rec: Recording, source: MapSource, path: Path) -> Path:
    w, h = (source.road_map.width, source.road_map.height) if source.road_map else (1.0, 1.0)
    fig, ax = plt.subplots(figsize=(10, max(3.0, 10 * h / w)))
    _map_background(ax, source)
    for r in rec.robots:
        p = rec.truth.get(r)
        if p is None or not len(p):
            continue
        if r in analysis.recording.get('traffic_lights', []):
            ax.plot(p.x[0], p.y[0], 's', color=TRAFFIC_LIGHT, ms=8)
            ax.annotate(r, (p.x[0], p.y[0]), fontsize=7, xytext=(4, 4), textcoords='offset points')
            continue
        step = max(1, len(p) // MAX_PATH_POINTS)
        t, x, y = p.t[::step], p.x[::step], p.y[::step]
        states = m.state_at(analysis.timelines.get(r, []), t)
        colours = [state_colour(s) for s in states[:-1]]
        segs = np.stack([np.column_stack([x[:-1], y[:-1]]), np.column_stack([x[1:], y[1:]])], axis=1)
        jumps = np.hypot(np.diff(x), np.diff(y)) > 0.05
        ax.add_collection(LineCollection(segs[~jumps], colors=np.array(colours, dtype=object)[~jumps].tolist()
                                         if len(colours) else None, linewidths=1.0, alpha=0.8))
        ax.plot(x[-1], y[-1], 'x', color='k', ms=5)
        ax.annotate(r, (x[-1], y[-1]), fontsize=7, xytext=(4, 4), textcoords='offset points')
    for e in analysis.episodes:
        for who in (e['a'], e['b']):
            p = rec.truth.get(who)
            if p is not None and len(p):
                px = np.interp(e['start_s'], p.t, p.x)
                py = np.interp(e['start_s'], p.t, p.y)
                ax.plot(px, py, 'o', mfc='none', color='red' if e['kind'] == 'collision' else 'orange',
                        ms=7)
    seen = {s for tl in analysis.timelines.values() for _, _, s in tl}
    handles = [plt.Line2D([], [], color=state_colour(s), lw=2, label=s)
               for s in [*STATE_COLOURS, *sorted(seen - set(STATE_COLOURS))] if s in seen]
    handles += [plt.Line2D([], [], marker='o', ls='', mfc='none', color='red', label='collision'),
                plt.Line2D([], [], marker='o', ls='', mfc='none', color='orange', label='near miss')]
    ax.legend(handles=handles, loc='upper right', fontsize='small')
    if w and h:
        ax.set_xlim(0, w)
        ax.set_ylim(0, h)
    ax.set_aspect('equal')
    ax.set_xlabel('x [m]')
    ax.set_ylabel('y [m]')
    ax.set_title('Ground-truth paths, coloured by controller state')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _states_figure(analysis: Analysis, path: Path) -> Path:
    robots = list(analysis.timelines)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.35 * len(robots)))
    for k, r in enumerate(robots):
        timeline = analysis.timelines[r]
        by_state: dict[str, list[tuple[float, float]]] = {}
        for a, b, s in timeline:
            by_state.setdefault(s, []).append((a, b - a))
        for s, spans in by_state.items():
            ax.broken_barh(spans, (k - 0.4, 0.8), color=state_colour(s))
    ax.set_yticks(range(len(robots)), robots)
    ax.invert_yaxis()
    ax.set_xlabel('time [s]')
    seen = {s for tl in analysis.timelines.values() for _, _, s in tl}
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=state_colour(s), label=s) for s in
                       [*STATE_COLOURS, *sorted(seen - set(STATE_COLOURS))] if s in seen],
              loc='upper left', bbox_to_anchor=(1.0, 1.0), fontsize='small')
    ax.set_title('Controller state over time')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _timed_laps(analysis: Analysis) -> list[dict]:
    return [e for e in analysis.laps if e['lap_time_s'] is not None]


def _timeline_figure(analysis: Analysis, rec: Recording, path: Path) -> Path | None:
    """Contacts and lap times against time, over the whole recording (not just where events are).

    A panel without data is left out (the page says why), so no empty axes are drawn.
    """
    timed = _timed_laps(analysis)
    panels = (['episodes'] if analysis.episodes else []) + (['laps'] if timed else [])
    if not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 1.5 + 2.5 * len(panels)), sharex=True,
                             squeeze=False)
    axes = list(axes[:, 0])
    if analysis.episodes:
        ax = axes[panels.index('episodes')]
        pairs = sorted({(e['a'], e['b']) for e in analysis.episodes})
        for k, (a, b) in enumerate(pairs):
            for e in analysis.episodes:
                if (e['a'], e['b']) == (a, b):
                    ax.broken_barh([(e['start_s'], max(e['end_s'] - e['start_s'], 0.05))], (k - 0.4, 0.8),
                                   color='red' if e['kind'] == 'collision' else 'orange')
        ax.set_yticks(range(len(pairs)), [f'{a}–{b}' for a, b in pairs])
        ax.set_title('Collisions (red) and near misses (orange)')
    if timed:
        ax = axes[panels.index('laps')]
        for r in rec.robots:
            laps = [e for e in timed if e['robot'] == r]
            if laps:
                ax.plot([e['crossed_start_s'] for e in laps], [e['lap_time_s'] for e in laps], 'o-',
                        ms=3, label=r)
        ax.set_ylabel('lap time [s]')
        ax.set_title('Lap times (at the start-line crossing that ends the lap)')
        if len({e['robot'] for e in timed}) <= 20:
            ax.legend(fontsize='small', ncol=2)
    run = analysis.recording
    axes[-1].set_xlim(run['start_s'], max(run['end_s'], run['start_s'] + 1e-3))
    axes[-1].set_xlabel('time [s]')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# --- HTML ----------------------------------------------------------------------------------------

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.problem { background: #fde2e2; border-left: 4px solid #c00; padding: 0.5em 1em; }
.missing { background: #fff5d6; border-left: 4px solid #d90; padding: 0.5em 1em; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def _e(value: Any) -> str:
    if value is None:
        return '–'
    if isinstance(value, float):
        return html.escape(f'{value:.4g}' if abs(value) < 1e5 else f'{value:.0f}')
    if isinstance(value, (dict, list, tuple)):
        return html.escape(_plain(value))
    return html.escape(str(value))


def _plain(value: Any) -> str:
    """A nested value as a reader writes it: 'a: 1, b: 2', lists comma-separated, no JSON braces."""
    if isinstance(value, dict):
        return '; '.join(f'{k}: {_plain(v)}' for k, v in value.items()) if value else '–'
    if isinstance(value, (list, tuple)):
        return ', '.join(_plain(v) for v in value) if value else '–'
    if isinstance(value, (float, np.floating)):
        return f'{value:.4g}' if abs(value) < 1e5 else f'{value:.0f}'
    return '–' if value is None else str(value)


def _table(rows: Sequence[dict], columns: Sequence[tuple[str, str]] | None = None) -> str:
    if not rows:
        return '<p>none</p>'
    if columns is None:
        keys: list[str] = []
        for row in rows:
            keys += [k for k in row if k not in keys]
        columns = [(k, k) for k in keys]
    columns = [(k, label) for k, label in columns if any(k in row for row in rows)]
    head = ''.join(f'<th>{html.escape(label)}</th>' for _, label in columns)
    body = ''.join('<tr>' + ''.join(f'<td>{_e(row.get(k))}</td>' for k, _ in columns) + '</tr>'
                   for row in rows[:MAX_ROWS])
    more = f'<p>… {len(rows) - MAX_ROWS} more rows in the CSV file.</p>' if len(rows) > MAX_ROWS else ''
    return f'<table><tr>{head}</tr>{body}</table>{more}'


def _stalls_html(analysis: Analysis, files: dict[str, Path]) -> str:
    stalls = analysis.stalls
    if not stalls:
        return ''
    if stalls['gridlock']:
        head = (f'<div class="problem"><b>The network stopped at {stalls["gridlock_at_s"]:.0f} s</b>: every '
                f'robot stood still for {stalls["stall_time_s"]:g} s.</div>')
    elif stalls['stall_count']:
        head = (f'<p>{stalls["stall_count"]} stalls (robots that moved less than 1 cm in '
                f'{stalls["stall_time_s"]:g} s), the first at {stalls["first_stall_s"]:.0f} s; '
                'the network kept moving.</p>')
    else:
        head = f'<p>No robot stood still for {stalls["stall_time_s"]:g} s.</p>'
    figure = '<img src="moving.png" alt="robots moving">' if 'moving.png' in files else ''
    table = _table(stalls['stalls'], [('robot', 'robot'), ('since_s', 'since (s)'), ('until_s', 'until (s)'),
                                      ('where', 'where'), ('held_by', 'held by'), ('state', 'state')]) \
        if stalls['stalls'] else ''
    return f'<h2>Stalls</h2>{head}{figure}{table}'


def _progress_html(analysis: Analysis) -> str:
    """Stuck and confined robots (analysis/progress.py), as summary.json's progress block."""
    p = analysis.progress
    if not p:
        return ''
    if p['stuck_count'] or p['confined_count']:
        head = (f'<div class="problem"><b>{p["stuck_count"]} stuck</b> (no progress along the roads for '
                f'{p["stall_time_s"]:g} s: {_e(p["stuck_robots"])}), <b>{p["confined_count"]} confined</b> '
                f'to an intersection ({CONFINED_TEXT.format(laps=p["confine_laps"])}).</div>')
    else:
        head = (f'<p>Every robot advanced along the roads ({p["advance_m"] * 100:g} cm, or an intersection '
                f'left) at least every {p["stall_time_s"]:g} s; none was confined to an intersection.</p>')
    parts = [f'<h2>Progress</h2>{head}']
    if p['stuck']:
        parts.append('<h3>Stuck</h3>' + _table(p['stuck'], [
            ('robot', 'robot'), ('since_s', 'since (s)'), ('until_s', 'until (s)'), ('where', 'where'),
            ('held_by', 'held by'), ('state', 'state'), ('confined_in', 'confined in')]))
    if p['confined']:
        parts.append('<h3>Confined</h3>' + _table(p['confined'], [
            ('robot', 'robot'), ('intersection', 'intersection'), ('kind', 'kind'), ('since_s', 'since (s)'),
            ('flagged_s', 'flagged (s)'), ('until_s', 'until (s)'), ('laps', 'laps')]))
    return ''.join(parts)


#: What makes a robot confined, for the page.
CONFINED_TEXT = '{laps:g} laps of its ring or circle without leaving it'


def _traffic_html(analysis: Analysis) -> str:
    """Passages, wrong-way drives and the traffic block (what summary.json's says for the run)."""
    parts = []
    p = analysis.passages
    if p:
        windows = p.get('throughput_windows')
        text = (f'<p>{p["passages"]} intersection passages (the controllers\' <code>left</code> events), '
                f'{_e(p["throughput_per_robot_minute"])} per robot-minute'
                + (f'; {windows["first"]} in the first {windows["window_s"]:g} s, {windows["last"]} in the last'
                   if windows else '') + '.')
        checked = p.get('checked')
        if checked:
            text += (f' {checked["ok"]} of {checked["passages"]} decisions checked against ground truth ended '
                     f'on the chosen branch ({checked["unmatched_decisions"]} could not be matched).')
        parts.append(f'<h2>Passages</h2>{text}</p>')
        if checked and checked['failures']:
            parts.append('<h3>Passages that did not end on the chosen branch</h3>' + _table(checked['failures']))
    w = analysis.wrong_way
    if w:
        parts.append(f'<h2>Wrong-way drives</h2><p>{w["episodes"]} ({w["distance_m"]:g} m).</p>'
                     + (_table(w['list']) if w['list'] else ''))
    t = analysis.traffic
    if t:
        rows = [{'measure': k, 'value': v} for k, v in t.items()
                if k not in ('contact_episodes', 'merge_conflicts', 'crossroad_conflicts', 'wrong_way')]
        parts.append('<h2>Traffic</h2><p>The block <code>summary.json</code> has as <code>traffic</code>.</p>'
                     + _table(rows))
        for key, title in (('contact_episodes', 'Contact episodes'), ('merge_conflicts', 'Merge conflicts'),
                           ('crossroad_conflicts', 'Crossroad conflicts')):
            if t.get(key):
                parts.append(f'<h3>{title}</h3>' + _table(t[key]))
    return ''.join(parts)


def _html(analysis: Analysis, files: dict[str, Path]) -> str:
    rec, mp = analysis.recording, analysis.map
    parts = [f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Run report: '
             f'{html.escape(Path(rec["path"]).name)}</title><style>{_STYLE}</style></head><body>',
             f'<h1>Run report</h1><p>Recording <code>{_e(rec["path"])}</code> ({_e(rec["storage"])}): '
             f'{_e(rec["duration_s"])} s from {_e(rec["start_s"])} s, {len(rec["robots"])} robots'
             + (f' and {len(rec["traffic_lights"])} traffic lights' if rec.get('traffic_lights') else '') +
             f', {_e(rec["topics"])} topics, {_e(rec["messages"])} messages.<br>'
             f'Map: {_e(mp["source"])}.</p>']
    if rec['problems'] or mp['notes']:
        items = ''.join(f'<li>{_e(p)}</li>' for p in [*rec['problems'], *mp['notes']])
        parts.append(f'<div class="problem"><b>Problems with this recording</b><ul>{items}</ul></div>')
    if analysis.not_computed:
        items = ''.join(f'<li><b>{_e(k)}</b>: {_e(v)}</li>' for k, v in analysis.not_computed.items())
        parts.append(f'<div class="missing"><b>Not computed</b><ul>{items}</ul></div>')
    parts.append('<h2>Per robot</h2>' + _table([r for r in analysis.robots if not r.get('traffic_light')],
                                               ROBOT_COLUMNS))
    if rec.get('traffic_lights'):
        parts.append(f'<p>Traffic lights (Thymios that never move; their hulls count in contacts): '
                     f'{_e(rec["traffic_lights"])}.</p>')
    states = sorted({s for r in analysis.robots for s in r.get('time_per_state_s', {})})
    if states:
        rows = [{'robot': r['robot'], **r.get('time_per_state_s', {})} for r in analysis.robots
                if 'time_per_state_s' in r]
        parts.append('<h3>Time per state (s)</h3>' + _table(rows, [('robot', 'robot')] +
                                                            [(s, s) for s in states]))
    for name, title in (('paths.png', 'Paths'), ('states.png', 'States'),
                        ('timeline.png', 'Contacts and laps over the run')):
        if name in files:
            parts.append(f'<h2>{title}</h2><img src="{name}" alt="{title}">')
    parts.append(_stalls_html(analysis, files))
    parts.append(_progress_html(analysis))
    parts.append(_traffic_html(analysis))
    absent = []
    if not analysis.episodes:
        absent.append('no collisions or near misses, so no contact timeline')
    if not _timed_laps(analysis):
        absent.append("no lap was timed (a lap time needs two crossings of a closed road's start), "
                      'so no lap plot')
    if absent:
        text = '; '.join(absent)
        parts.append(f'<p>{html.escape(text[0].upper() + text[1:])}.</p>')
    net = analysis.network
    if net:
        rows = [{'metric': k, 'value': v} for k, v in net.items() if k != 'trips']
        parts.append('<h2>Network</h2>' + _table(rows))
        if net.get('trips'):
            parts.append('<h3>Trips</h3>' + _table(net['trips']))
    for key, title, csv_name in (('episodes', 'Collisions and near misses', 'episodes.csv'),
                                 ('laps', 'Laps', 'laps.csv'),
                                 ('barcode_reads', 'Barcode reads', 'barcodes.csv'),
                                 ('decisions', 'Intersection decisions', 'decisions.csv'),
                                 ('waits', 'Waiting at traffic lights', 'waits.csv'),
                                 ('ir', 'IR messages received', 'ir.csv')):
        rows = getattr(analysis, key)
        if rows:
            parts.append(f'<h2>{title}</h2><p><a href="{csv_name}">{csv_name}</a></p>' + _table(rows))
    listing = ''.join(f'<li><a href="{p.name}">{p.name}</a></li>' for p in files.values()
                      if p.name != 'index.html')
    parts.append(f'<h2>Files</h2><ul>{listing}</ul></body></html>')
    return '\n'.join(parts)
