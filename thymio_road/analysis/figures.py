"""Pictures of a run over the printed map (matplotlib, no display needed)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from thymio_road.map.road_map import RoadMap  # noqa: E402

#: Longest side of the map image drawn under the trajectories, in pixels.
PREVIEW_PIXELS = 1600


def map_image(road_map: RoadMap) -> np.ndarray:
    """The printed grey, subsampled to at most PREVIEW_PIXELS on its longer side."""
    step = max(1, int(np.ceil(max(road_map.shape) / PREVIEW_PIXELS)))
    return road_map.grey[::step, ::step]


def robot_colours(count: int) -> list[tuple[float, float, float, float]]:
    """`count` distinct colours: tab10 or tab20 while they suffice, else `count` steps of turbo
    (a 10-colour cycle drew robots 1 and 11 alike)."""
    if count <= 10:
        return [plt.get_cmap('tab10')(k) for k in range(count)]
    if count <= 20:
        return [plt.get_cmap('tab20')(k) for k in range(count)]
    return [tuple(c) for c in plt.get_cmap('turbo')(np.linspace(0.0, 1.0, count))]


def run_title(name: str, robots: int, simulated_s: float, seed: int, interrupted: bool) -> str:
    """The picture's title; an interrupted run says when it stopped, so it is not taken for a full one."""
    what = f'interrupted at {simulated_s:.0f} s' if interrupted else f'{simulated_s:.0f} s simulated'
    return f'{name}: {robots} robot{"" if robots == 1 else "s"}, {what}, seed {seed}'


@dataclass
class TrajectoryPlot:
    """What was drawn, for checking: each robot's colour and the legend's labels."""

    colours: dict[str, tuple]
    legend: list[str]
    title: str


#: Robots named one by one in the legend up to this many (beyond, the legend explains the markers).
LEGEND_ROBOTS = 20


def plot_trajectories(road_map: RoadMap, trajectories: dict[str, np.ndarray], path: Path,
                      title: str = '') -> TrajectoryPlot:
    """Each robot's path (n×2 points, metres) over the map; start ○, end ×, both in the legend."""
    aspect = road_map.height / road_map.width
    fig, ax = plt.subplots(figsize=(10, max(3.0, 10 * aspect)))
    ax.imshow(map_image(road_map), cmap='gray', vmin=0, vmax=1, origin='lower',
              extent=(0, road_map.width, 0, road_map.height), interpolation='bilinear')
    palette = robot_colours(len(trajectories))
    colours: dict[str, tuple] = {}
    handles = []
    for (name, xy), c in zip(trajectories.items(), palette):
        colours[name] = tuple(c)
        if len(xy) == 0:
            continue
        line, = ax.plot(xy[:, 0], xy[:, 1], '-', color=c, lw=1.0, alpha=0.8, label=name)
        ax.plot(*xy[0], 'o', color=c, mfc='none')
        ax.plot(*xy[-1], 'x', color=c)
        if len(trajectories) <= LEGEND_ROBOTS:
            handles.append(line)
    handles += [Line2D([], [], marker='o', ls='', mfc='none', color='k', label='start'),
                Line2D([], [], marker='x', ls='', color='k', label='end')]
    ax.set_xlim(0, road_map.width)
    ax.set_ylim(0, road_map.height)
    ax.set_aspect('equal')
    ax.set_xlabel('x [m]')
    ax.set_ylabel('y [m]')
    ax.set_title(title or road_map.name)
    legend = ax.legend(handles=handles, loc='upper right', fontsize='small',
                       ncol=max(1, len(handles) // 11 + 1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return TrajectoryPlot(colours, [t.get_text() for t in legend.get_texts()], ax.get_title())
