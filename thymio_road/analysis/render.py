# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Pictures of a recorded run over the printed map: one frame (PNG) or an animation (GIF, MP4).

Robots are drawn as their hulls, coloured by controller state and labelled with their names, with
a short trail; traffic
lights as black squares; an IR message received is a line from its sender (the nearest robot
whose ``comm/tx`` carried the received value) to the receiver. The map is drawn once and each
frame only redraws the robots (Agg blitting), so a frame costs a few milliseconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import shutil
import subprocess
from typing import Any, Callable

import matplotlib

matplotlib.use('Agg')
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from thymio_road.analysis import metrics as m  # noqa: E402
from thymio_road.analysis.bag import read_recording, Recording  # noqa: E402
from thymio_road.analysis.core import ir_sender  # noqa: E402
from thymio_road.analysis.mapsource import MapSource, resolve_map  # noqa: E402
from thymio_road.analysis.style import IR_LINK, state_colour, STATE_COLOURS, TRAFFIC_LIGHT  # noqa: E402
from thymio_road.sim.sensors import hulls_world  # noqa: E402

#: Default length of an animation when no speed is given (video seconds).
DEFAULT_VIDEO_SECONDS = 30.0
#: Trail drawn behind each robot (simulated seconds).
TRAIL = 5.0
FORMATS = ('.gif', '.mp4', '.png')
#: A robot's name is written this far (m) up and right of its centre, clear of its hull.
LABEL_OFFSET = 0.06


class RenderError(Exception):
    """A render that cannot be made (bad window, unknown format, no poses); names the problem."""


@dataclass
class RenderResult:
    path: Path
    frames: int
    start: float
    end: float
    speed: float
    #: Map point (m) → picture pixel (column, row), for checking what was drawn where.
    pixel: Callable[[float, float], tuple[float, float]] | None = None


def render(bag: str | Path, out: str | Path, *, start: float | None = None, end: float | None = None,
           at: float | None = None, fps: float = 10.0, speed: float | None = None,
           max_frames: int = 600, width_px: int = 800, map_path: str | Path | None = None,
           scenario: str | None = None, recording: Recording | None = None) -> RenderResult:
    """Draw a run: a PNG frame at `at` (default: the window's end), or a GIF/MP4 of [start, end]."""
    out = Path(out)
    if out.suffix.lower() not in FORMATS:
        raise RenderError(f'{out}: unknown picture format {out.suffix!r}; use one of {", ".join(FORMATS)}')
    rec = recording or read_recording(bag)
    source = resolve_map(rec, map_path, scenario)
    scene = _Scene(rec, source, width_px)
    if scene.t0 is None:
        raise RenderError(f'{rec.path}: no ground_truth poses: there is nothing to draw '
                          f'(topics: {", ".join(sorted(rec.topics)) or "none"})')
    lo = scene.t0 if start is None else max(start, scene.t0)
    hi = scene.t1 if end is None else min(end, scene.t1)
    if hi < lo:
        raise RenderError(f'the window {start}..{end} s is outside the recording '
                          f'({scene.t0:.1f}..{scene.t1:.1f} s)')
    if out.suffix.lower() == '.png':
        when = hi if at is None else at
        if not scene.t0 <= when <= scene.t1:
            raise RenderError(f'--at {when} s is outside the recording ({scene.t0:.1f}..{scene.t1:.1f} s)')
        image = scene.frame(when, max(TRAIL, 0.1))
        out.parent.mkdir(parents=True, exist_ok=True)
        image.save(out)
        scene.close()
        return RenderResult(out, 1, when, when, 0.0, scene.pixel)
    if fps <= 0:
        raise RenderError(f'fps must be positive, got {fps}')
    window = hi - lo
    if speed is None:
        speed = max(1.0, window / DEFAULT_VIDEO_SECONDS)
    step = speed / fps
    n = int(np.floor(window / step + 1e-9)) + 1
    if n > max_frames:
        raise RenderError(f'{n} frames for {window:.1f} s at {speed:g}× and {fps:g} fps is more than '
                          f'{max_frames}: raise --speed, narrow --start/--end or lower --fps')
    times = lo + step * np.arange(n)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == '.gif':
        frames = [scene.frame(float(t), step).convert('RGB').quantize(
            colors=128, method=Image.Quantize.FASTOCTREE) for t in times]
        frames[0].save(out, save_all=True, append_images=frames[1:], duration=int(round(1000 / fps)),
                       loop=0)
    else:
        _write_mp4(out, (scene.frame(float(t), step) for t in times), scene.size, fps)
    scene.close()
    return RenderResult(out, n, float(times[0]), float(times[-1]), speed, scene.pixel)


def _ffmpeg() -> str | None:
    found = shutil.which('ffmpeg')
    if found:
        return found
    try:
        import imageio_ffmpeg  # type: ignore[import-not-found]
        return imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:  # noqa: BLE001 - not installed
        return None


def _write_mp4(out: Path, frames: Any, size: tuple[int, int], fps: float) -> None:
    exe = _ffmpeg()
    if exe is None:
        raise RenderError(f'{out}: MP4 needs ffmpeg (apt-get install ffmpeg, or pip install '
                          'imageio-ffmpeg); write a .gif instead')
    w, h = size
    cmd = [exe, '-y', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}',
           '-r', f'{fps:g}', '-i', '-', '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', '-pix_fmt', 'yuv420p',
           '-vcodec', 'libx264', str(out)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    for image in frames:
        proc.stdin.write(image.convert('RGB').tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise RenderError(f'{out}: ffmpeg failed: {proc.stderr.read().decode(errors="replace")}')


class _Scene:
    """The map drawn once, and artists for the robots updated per frame."""

    def __init__(self, rec: Recording, source: MapSource, width_px: int) -> None:
        from thymio_road.analysis.core import state_timelines
        from thymio_road.analysis.report import _map_background
        self.rec = rec
        self.names = [r for r in rec.robots if r in rec.truth and len(rec.truth[r])]
        if not self.names:
            self.t0 = self.t1 = None
            return
        self.t0 = min(float(rec.truth[r].t[0]) for r in self.names)
        self.t1 = max(float(rec.truth[r].t[-1]) for r in self.names)
        timelines = state_timelines(rec)
        self.timelines = {r: timelines.get(r, []) for r in self.names}
        self.lights = {r for r in self.names if m.is_static(rec.truth[r].x, rec.truth[r].y)
                       and len(rec.truth[r]) > 10 and not rec.has(r, 'controller/state')}
        if source.road_map is not None:
            w, h = source.road_map.width, source.road_map.height
        else:
            p = np.concatenate([np.column_stack([rec.truth[r].x, rec.truth[r].y]) for r in self.names])
            w, h = float(p[:, 0].max()) + 0.1, float(p[:, 1].max()) + 0.1
        dpi = 100
        fig_w = width_px / dpi
        self.fig = plt.figure(figsize=(fig_w, fig_w * h / w + 0.3), dpi=dpi)
        self.ax = self.fig.add_axes((0.0, 0.0, 1.0, h / (h + 0.3 * w / fig_w)))
        self.ax.set_xlim(0, w)
        self.ax.set_ylim(0, h)
        self.ax.set_aspect('equal')
        self.ax.axis('off')
        _map_background(self.ax, source)
        present = {s for tl in self.timelines.values() for _, _, s in tl}
        handles = [plt.Rectangle((0, 0), 1, 1, color=state_colour(s), label=s)
                   for s in [*STATE_COLOURS, *sorted(present - set(STATE_COLOURS))] if s in present]
        if self.lights:
            handles.append(plt.Rectangle((0, 0), 1, 1, color=TRAFFIC_LIGHT, label='traffic light'))
        if rec.rx:
            handles.append(plt.Line2D([], [], color=IR_LINK, lw=2, label='IR message'))
        if handles:
            self.fig.legend(handles=handles, loc='upper right', ncol=min(len(handles), 5),
                            fontsize='small', frameon=False)
        self.text = self.fig.text(0.01, 0.99, '', va='top', ha='left', fontsize='small')
        self.hulls = PolyCollection([], edgecolors='k', linewidths=0.5, zorder=5)
        self.trails = LineCollection([], linewidths=1.0, alpha=0.6, zorder=4)
        self.links = LineCollection([], colors=IR_LINK, linewidths=1.5, zorder=6)
        for artist in (self.trails, self.hulls, self.links):
            self.ax.add_collection(artist)
        self.fig.canvas.draw()
        self.background = self.fig.canvas.copy_from_bbox(self.fig.bbox)
        # Names beside the hulls, so a frame tells which robot is which (drawn per frame).
        self.labels = {r: self.ax.text(0.0, 0.0, r, fontsize=7, zorder=7, visible=False,
                                       bbox={'boxstyle': 'round,pad=0.1', 'fc': 'white', 'ec': 'none',
                                             'alpha': 0.7})
                       for r in self.names}
        self.size = self.fig.canvas.get_width_height()
        (x0, y0), (x1, y1) = self.ax.transData.transform([(0.0, 0.0), (1.0, 1.0)])
        height = self.size[1]
        self.pixel = lambda x, y: (x0 + (x1 - x0) * x, height - (y0 + (y1 - y0) * y))
        self.senders = {r: rec.tx[r] for r in rec.tx}

    def frame(self, t: float, step: float) -> Image.Image:
        rec = self.rec
        poses, colours, trails, trail_colours, visible = [], [], [], [], []
        for r in self.names:
            p = rec.truth[r]
            if t < p.t[0] or t > p.t[-1] + 1.0:
                continue
            x, y = np.interp(t, p.t, p.x), np.interp(t, p.t, p.y)
            yaw = np.interp(t, p.t, np.unwrap(p.yaw))
            poses.append((x, y, yaw))
            visible.append(r)
            if r in self.lights:
                colours.append(TRAFFIC_LIGHT)
                continue
            state = m.state_at(self.timelines[r], np.array([t]))[0]
            colours.append(state_colour(state))
            a, b = np.searchsorted(p.t, [t - TRAIL, t])
            if b - a > 1:
                trails.append(np.column_stack([p.x[a:b], p.y[a:b]]))
                trail_colours.append(state_colour(state))
        self.hulls.set_verts(list(hulls_world(np.array(poses))) if poses else [])
        self.hulls.set_facecolors(colours)
        self.trails.set_segments(trails)
        self.trails.set_colors(trail_colours)
        self.links.set_segments(self._links(t, step, dict(zip(visible, poses))))
        self.text.set_text(f't = {t:7.1f} s')
        canvas = self.fig.canvas
        canvas.restore_region(self.background)
        for artist in (self.trails, self.hulls, self.links):
            self.ax.draw_artist(artist)
        for r, label in self.labels.items():
            label.set_visible(r in visible)
        for r, (x, y, _) in zip(visible, poses):
            self.labels[r].set_position((x + LABEL_OFFSET, y + LABEL_OFFSET))
            self.ax.draw_artist(self.labels[r])
        self.fig.draw_artist(self.text)
        return Image.fromarray(np.asarray(canvas.buffer_rgba()).copy())

    def _links(self, t: float, step: float, where: dict[str, tuple]) -> list[np.ndarray]:
        segs = []
        for r, (times, values) in self.rec.rx.items():
            if r not in where or not len(times):
                continue
            a, b = np.searchsorted(times, [t - step, t], side='right')
            for when, value in zip(times[a:b], values[a:b, 0]):
                if value == 0:
                    continue
                sender = ir_sender(self.senders, r, float(when), int(value), self.rec)
                if sender in where:
                    segs.append(np.array([where[sender][:2], where[r][:2]]))
        return segs

    def close(self) -> None:
        if getattr(self, 'fig', None) is not None:
            plt.close(self.fig)
