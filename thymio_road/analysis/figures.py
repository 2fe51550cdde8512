# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""trajectories.png: each robot's path over the printed map, drawn with Pillow.

Every run draws this picture at its end. With matplotlib, importing it and drawing took 1.2–1.5 s
of CPU, a third of what a 1 s run of `final` cost in all (issue #28). Pillow draws the same
content (the map, one colour per robot, start and end markers, a legend, axes in metres and the
title) in about 0.1 s, from the darkness raster that /map publishes and the raster cache keeps.
"""
from __future__ import annotations

import colorsys
from dataclasses import dataclass
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from thymio_road.map.road_map import RoadMap

#: Longest side of the map image drawn under the trajectories, in pixels.
PREVIEW_PIXELS = 1600
#: Longest side of the map in the picture, in pixels.
PLOT_PIXELS = 1000
#: Lines and markers are drawn this many times larger, then scaled down: smooth edges.
SUPERSAMPLE = 2
#: Robots named one by one in the legend up to this many (beyond, the legend explains the markers).
LEGEND_ROBOTS = 20
# Matplotlib's tab10 and tab20 cycles, which the picture used before: users know these colours.
_TAB10 = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
          '#bcbd22', '#17becf')
_TAB20 = ('#1f77b4', '#aec7e8', '#ff7f0e', '#ffbb78', '#2ca02c', '#98df8a', '#d62728', '#ff9896',
          '#9467bd', '#c5b0d5', '#8c564b', '#c49c94', '#e377c2', '#f7b6d2', '#7f7f7f', '#c7c7c7',
          '#bcbd22', '#dbdb8d', '#17becf', '#9edae5')
_MARGIN = {'left': 70, 'right': 16, 'top': 44, 'bottom': 56}
_TICK = 6


def map_image(road_map: RoadMap) -> np.ndarray:
    """The printed grey, subsampled to at most PREVIEW_PIXELS on its longer side (the report's
    figures draw it under matplotlib).
    """
    step = max(1, int(np.ceil(max(road_map.shape) / PREVIEW_PIXELS)))
    return road_map.grey[::step, ::step]


def map_darkness(road_map: RoadMap) -> np.ndarray:
    """The printed darkness (0 white .. 100 black, row 0 at y = 0) on cells of a whole number of
    pixels, at most PREVIEW_PIXELS on the longer side: /map's own raster on the shipped maps
    (5 mm cells on `final`), so a run reads it from the raster cache instead of drawing it.
    """
    step = max(1, int(np.ceil(max(road_map.shape) / PREVIEW_PIXELS)))
    return road_map.occupancy(step * road_map.resolution)


def robot_colours(count: int) -> list[str]:
    """`count` distinct colours ('#rrggbb'): tab10 or tab20 while they suffice, else `count` hues
    around the colour circle, alternately bright and dark so that neighbours differ (a 10-colour
    cycle drew robots 1 and 11 alike).
    """
    if count <= 10:
        return list(_TAB10[:count])
    if count <= 20:
        return list(_TAB20[:count])
    out = []
    for k in range(count):
        r, g, b = colorsys.hsv_to_rgb(k / count, 0.9, 0.95 if k % 2 == 0 else 0.6)
        out.append(f'#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}')
    return out


def run_title(name: str, robots: int, simulated_s: float, seed: int, interrupted: bool) -> str:
    """The picture's title; an interrupted run says when it stopped, so it is not taken for a full one."""
    what = f'interrupted at {simulated_s:.0f} s' if interrupted else f'{simulated_s:.0f} s simulated'
    return f'{name}: {robots} robot{"" if robots == 1 else "s"}, {what}, seed {seed}'


@dataclass
class TrajectoryPlot:
    """What was drawn, for checking: each robot's colour, the legend's labels, the title, and
    where the map lies in the picture (left, top, right, bottom pixels; y up in the map).
    """

    colours: dict[str, str]
    legend: list[str]
    title: str
    frame: tuple[int, int, int, int]

    def pixel(self, x: float, y: float, road_map: RoadMap) -> tuple[int, int]:
        """The picture's pixel, as (column, row), of the map point (x, y), in metres."""
        left, top, right, bottom = self.frame
        return (int(left + x / road_map.width * (right - left)),
                int(bottom - y / road_map.height * (bottom - top)))


def plot_trajectories(road_map: RoadMap, trajectories: dict[str, np.ndarray], path: Path,
                      title: str = '') -> TrajectoryPlot:
    """Each robot's path (n×2 points, metres) over the map; start ○, end ×, both in the legend."""
    scale = PLOT_PIXELS / max(road_map.width, road_map.height)
    plot_w, plot_h = max(1, round(road_map.width * scale)), max(1, round(road_map.height * scale))
    colours = dict(zip(trajectories, robot_colours(len(trajectories))))
    title = title or road_map.name
    legend = ([name for name in trajectories if len(trajectories[name])]
              if len(trajectories) <= LEGEND_ROBOTS else []) + ['start', 'end']
    font, small = _font(16), _font(13)
    legend_w, legend_cols = _legend_size(legend, small, plot_h)
    m = _MARGIN
    image = Image.new('RGB', (m['left'] + plot_w + m['right'] + legend_w, m['top'] + plot_h + m['bottom']), 'white')
    frame = (m['left'], m['top'], m['left'] + plot_w, m['top'] + plot_h)
    image.paste(_plot(road_map, trajectories, colours, plot_w, plot_h), frame[:2])
    draw = ImageDraw.Draw(image)
    draw.rectangle((frame[0] - 1, frame[1] - 1, frame[2], frame[3]), outline='black')
    _axes(image, draw, road_map, frame, small)
    draw.text(((frame[0] + frame[2]) / 2, m['top'] / 2), title, fill='black', font=font, anchor='mm')
    _legend(draw, legend, colours, (frame[2] + m['right'], frame[1]), legend_cols, small)
    image.save(path, format='PNG', optimize=False, compress_level=6)
    return TrajectoryPlot(colours, legend, title, frame)


def _font(size: int) -> ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)  # Pillow 10.1 and later: a scalable font of its own
    except TypeError:  # an older Pillow (Ubuntu 22.04's, with ROS Humble): the system's DejaVu
        return ImageFont.truetype('DejaVuSans.ttf', size)


def _plot(road_map: RoadMap, trajectories: dict[str, np.ndarray], colours: dict[str, str],
          plot_w: int, plot_h: int) -> Image.Image:
    """The map in grey with the paths over it, drawn SUPERSAMPLE times larger and scaled down."""
    s = SUPERSAMPLE
    grey = (255 - map_darkness(road_map).astype(np.int16) * 255 // 100).astype(np.uint8)[::-1]
    plot = Image.fromarray(np.ascontiguousarray(grey), 'L').resize((plot_w * s, plot_h * s),
                                                                   Image.Resampling.BILINEAR).convert('RGB')
    draw = ImageDraw.Draw(plot, 'RGBA')
    sx, sy = plot_w * s / road_map.width, plot_h * s / road_map.height
    r = 5 * s
    for name, xy in trajectories.items():
        if len(xy) == 0:
            continue
        points = np.column_stack([xy[:, 0] * sx, (road_map.height - xy[:, 1]) * sy])
        rgb = tuple(int(colours[name][i:i + 2], 16) for i in (1, 3, 5))
        if len(points) > 1:
            draw.line([tuple(p) for p in points.tolist()], fill=(*rgb, 220), width=2 * s, joint='curve')
        (x0, y0), (x1, y1) = points[0], points[-1]
        draw.ellipse((x0 - r, y0 - r, x0 + r, y0 + r), outline=rgb, width=s + 1)
        draw.line((x1 - r, y1 - r, x1 + r, y1 + r), fill=rgb, width=s + 1)
        draw.line((x1 - r, y1 + r, x1 + r, y1 - r), fill=rgb, width=s + 1)
    return plot.reduce(s)  # each pixel the mean of s × s: smooth edges


def _tick_step(length: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving at most 10 ticks over `length` metres."""
    raw = length / 10
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    return next(k * power for k in (1, 2, 5, 10) if k * power >= raw)


def _axes(image: Image.Image, draw: ImageDraw.ImageDraw, road_map: RoadMap,
          frame: tuple[int, int, int, int], font: ImageFont.ImageFont) -> None:
    """Ticks in metres below and left of the map, and the axes' names: the picture's scale."""
    left, top, right, bottom = frame
    step = _tick_step(max(road_map.width, road_map.height))
    for k in range(int(road_map.width / step + 1e-9) + 1):
        x = left + k * step / road_map.width * (right - left)
        draw.line((x, bottom, x, bottom + _TICK), fill='black')
        draw.text((x, bottom + _TICK + 2), f'{k * step:g}', fill='black', font=font, anchor='ma')
    for k in range(int(road_map.height / step + 1e-9) + 1):
        y = bottom - k * step / road_map.height * (bottom - top)
        draw.line((left - _TICK, y, left - 1, y), fill='black')
        draw.text((left - _TICK - 4, y), f'{k * step:g}', fill='black', font=font, anchor='rm')
    draw.text(((left + right) / 2, bottom + _MARGIN['bottom'] - 8), 'x [m]', fill='black', font=font, anchor='md')
    label = Image.new('L', (60, 20), 255)
    ImageDraw.Draw(label).text((30, 10), 'y [m]', fill=0, font=font, anchor='mm')
    label = label.rotate(90, expand=True)
    image.paste(Image.new('RGB', label.size, 'black'), (8, (top + bottom - label.height) // 2),
                Image.eval(label, lambda v: 255 - v))


_LINE = 20        # the legend's line height
_SAMPLE = 26      # the width of a legend entry's marker or line sample


def _legend_size(labels: list[str], font: ImageFont.ImageFont, height: int) -> tuple[int, int]:
    """The legend's width and columns: as many entries in a column as the map's height holds."""
    rows = max(1, (height - 12) // _LINE)
    cols = -(-len(labels) // rows)
    col_w = _SAMPLE + 12 + max(int(font.getlength(label)) for label in labels)
    return cols * col_w + 12, cols


def _legend(draw: ImageDraw.ImageDraw, labels: list[str], colours: dict[str, str], origin: tuple[int, int],
            cols: int, font: ImageFont.ImageFont) -> None:
    """Robots by colour, then the markers; in a framed box beside the map."""
    rows = -(-len(labels) // cols)
    col_w = _SAMPLE + 12 + max(int(font.getlength(label)) for label in labels)
    x0, y0 = origin
    draw.rectangle((x0, y0, x0 + cols * col_w + 4, y0 + rows * _LINE + 8), outline='#bbbbbb')
    for k, label in enumerate(labels):
        x = x0 + 6 + (k // rows) * col_w
        y = y0 + 4 + (k % rows) * _LINE + _LINE // 2
        mid = x + _SAMPLE // 2
        if label == 'start':
            draw.ellipse((mid - 5, y - 5, mid + 5, y + 5), outline='black', width=2)
        elif label == 'end':
            draw.line((mid - 5, y - 5, mid + 5, y + 5), fill='black', width=2)
            draw.line((mid - 5, y + 5, mid + 5, y - 5), fill='black', width=2)
        else:
            draw.line((x, y, x + _SAMPLE, y), fill=colours[label], width=3)
        draw.text((x + _SAMPLE + 6, y), label, fill='black', font=font, anchor='lm')
