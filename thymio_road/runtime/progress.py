# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Progress of a run: a tqdm bar on a terminal, plain lines every 10 % elsewhere.

tqdm draws nothing when stderr is not a terminal (a log file, CI, `nohup`), so a long run there
used to be silent until it ended. The line reporter gives such logs a heartbeat instead:
simulated time, wall time and the real-time factor at every tenth of the run.
"""
from __future__ import annotations

import sys
import time
from typing import Any, Callable, TextIO

#: Fraction of the run between two progress lines when stderr is not a terminal.
LINE_STEP = 0.1


class LineProgress:
    """One line to `stream` each time the run passes another LINE_STEP of its duration."""

    def __init__(self, duration: float, stream: TextIO, clock: Callable[[], float] = time.perf_counter,
                 step: float = LINE_STEP) -> None:
        self.duration = duration
        self.stream = stream
        self.clock = clock
        self.step = step
        self.start = clock()
        self.done = 0  # tenths reported so far

    def update_to(self, t: float) -> None:
        if self.duration <= 0:
            return
        reached = min(int(t / self.duration / self.step + 1e-9), round(1 / self.step))
        if reached <= self.done:
            return
        self.done = reached
        wall = self.clock() - self.start
        rate = f'{t / wall:.1f}x real time' if wall > 0 else 'real-time factor n/a'
        print(f'{reached * self.step * 100:3.0f} %: {t:.0f}/{self.duration:.0f} simulated s, '
              f'{wall:.1f} s wall, {rate}', file=self.stream, flush=True)

    def close(self) -> None:
        pass


def progress_reporter(duration: float, enabled: bool, stream: TextIO | None = None) -> Any:
    """A reporter with ``update_to(simulated_s)`` and ``close()``, or None when disabled."""
    if not enabled:
        return None
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        return LineProgress(duration, stream)
    from tqdm import tqdm

    class Bar(tqdm):
        def update_to(self, t: float) -> None:
            self.update(round(t - self.n, 3))

    return Bar(total=duration, unit='sim s', dynamic_ncols=True, file=stream,
               bar_format='{l_bar}{bar}| {n:.0f}/{total:.0f} sim s [{elapsed}<{remaining}, {rate_fmt}]')
