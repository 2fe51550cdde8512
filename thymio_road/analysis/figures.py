"""Pictures of a run over the printed map (matplotlib, no display needed)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from thymio_road.map.road_map import RoadMap  # noqa: E402

#: Longest side of the map image drawn under the trajectories, in pixels.
PREVIEW_PIXELS = 1600


def map_image(road_map: RoadMap) -> np.ndarray:
    """The printed grey, subsampled to at most PREVIEW_PIXELS on its longer side."""
    step = max(1, int(np.ceil(max(road_map.shape) / PREVIEW_PIXELS)))
    return road_map.grey[::step, ::step]


def plot_trajectories(road_map: RoadMap, trajectories: dict[str, np.ndarray], path: Path,
                      title: str = '') -> None:
    """Each robot's path (n×2 points, metres) over the map; start ○, end ×."""
    aspect = road_map.height / road_map.width
    fig, ax = plt.subplots(figsize=(10, max(3.0, 10 * aspect)))
    ax.imshow(map_image(road_map), cmap='gray', vmin=0, vmax=1, origin='lower',
              extent=(0, road_map.width, 0, road_map.height), interpolation='bilinear')
    colours = plt.get_cmap('tab10')
    for k, (name, xy) in enumerate(trajectories.items()):
        if len(xy) == 0:
            continue
        c = colours(k % 10)
        ax.plot(xy[:, 0], xy[:, 1], '-', color=c, lw=1.0, alpha=0.8, label=name)
        ax.plot(*xy[0], 'o', color=c, mfc='none')
        ax.plot(*xy[-1], 'x', color=c)
    ax.set_xlim(0, road_map.width)
    ax.set_ylim(0, road_map.height)
    ax.set_aspect('equal')
    ax.set_xlabel('x [m]')
    ax.set_ylabel('y [m]')
    ax.set_title(title or road_map.name)
    if len(trajectories) <= 20:
        ax.legend(loc='upper right', fontsize='small', ncol=max(1, len(trajectories) // 10))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
