# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Sweeps: many independent runs, in this process or on a dask.distributed cluster (issue #28).

An experiment describes each run as a small picklable job (plain data: scenario or map name,
seed, robots, duration, options) and gives a top-level function that runs one job and returns
plain data. :func:`run` runs the jobs one after another here (``workers=1``, the path every
experiment had before), on a local cluster of worker processes (``workers=N``), or on an
existing dask scheduler (``scheduler='tcp://host:8786'``). Each job carries its own seed and
the results come back in job order, so the table does not depend on which worker ran what or
when it finished.

What is retried: a worker process that dies (killed, out of memory, a crash in compiled code)
takes its run with it; the scheduler runs it again on another worker, up to dask's
``distributed.scheduler.allowed-failures`` times (3 by default), and then the run is reported
failed (``KilledWorker``). An exception raised by the run itself is not retried, since the
same seed fails the same way: it is caught on the worker and comes back as an :class:`Outcome`
with the error, so the table still completes and names the failed run's parameters.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
import logging
import os
import re
import sys
import traceback
from typing import Any, Callable, Sequence, TextIO

from thymio_road.map.validation import arg_int, ConfigError, show

#: Worker processes a local cluster may have (each holds a map and the compiled kernels).
MAX_WORKERS = 256
#: Reruns of a task that failed outside the job's own code (the job's errors are caught first).
RETRIES = 2
#: Seconds to wait for an existing scheduler before giving up.
CONNECT_TIMEOUT = 20
#: dask settings for the local cluster's workers (its nannies keep them for restarts too). The
#: nanny's default MALLOC_TRIM_THRESHOLD_ turns off glibc's adaptive mmap threshold, so every
#: large numpy temporary of the simulation is mapped and unmapped again (runs measured 20-40 %
#: slower), and the statistical profiler samples the running thread every 10 ms for a dashboard
#: that nobody looks at. docs/sweeps.md gives the same as a file for `dask worker`.
WORKER_CONFIG = {'distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_': None,
                 'distributed.worker.profile.enabled': False}
_ADDRESS = re.compile(r'^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$')


class SweepError(ConfigError):
    """The sweep cannot start (no dask installed, the scheduler unreachable): the command reports
    it as an error of its input, exit 2, before any run.
    """


@dataclass(frozen=True)
class Outcome:
    """One job's result, or how it failed: ``error`` is 'ExceptionType: message' (None: it ran)."""

    job: Any
    value: Any = None
    error: str | None = None
    #: The worker's traceback of a failed run, for a log (the table shows only `error`).
    traceback: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def attempt(fn: Callable[[Any], Any], job: Any) -> Outcome:
    """Run one job, catching what it raises (not KeyboardInterrupt: a Ctrl-C stops the sweep)."""
    try:
        return Outcome(job, fn(job))
    except Exception as exc:  # noqa: BLE001 - any failure of one run is reported with its job
        return Outcome(job, error=f'{type(exc).__name__}: {exc}', traceback=traceback.format_exc())


def default_workers() -> int:
    """The cores this process may use (the affinity mask where there is one, as `nproc`)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def add_arguments(parser: argparse.ArgumentParser, what: str = 'runs') -> None:
    """--workers and --scheduler on an experiment's command, exclusive of each other."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--workers', type=arg_int(1, MAX_WORKERS), metavar='N',
                       help=f'spread the {what} over N local worker processes (dask.distributed); '
                            f"1 runs them one after another in this process (default: the machine's "
                            f'cores, {default_workers()} here; the results are the same)')
    group.add_argument('--scheduler', type=scheduler_address, metavar='ADDRESS',
                       help=f"send the {what} to an existing dask cluster's scheduler, e.g. tcp://host:8786 "
                            f'(docs/sweeps.md: `dask scheduler`, `dask worker ADDRESS`)')


def scheduler_address(text: str) -> str:
    """An argparse type for a dask scheduler address: [tcp|tls|ws|wss|ucx://]host:port."""
    if not _ADDRESS.match(text) or not 0 < int(text.rsplit(':', 1)[1]) < 65536:
        raise argparse.ArgumentTypeError(f'must be a dask scheduler address such as tcp://host:8786, '
                                         f'got {show(text)}')
    return text


scheduler_address.__name__ = 'address'


class Progress:
    """Finished runs counted on `stream`: a tqdm bar on a terminal with each run's line above it,
    else one plain line per run with its count (logs and CI, like runtime/progress.py).
    """

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None, unit: str = 'run') -> None:
        self.total = total
        self.unit = unit
        self.count = 0
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.bar = None
        if enabled and self.stream.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit=unit, file=self.stream, dynamic_ncols=True)

    def done(self, line: str | None) -> None:
        self.count += 1
        if self.bar is not None:
            if line:
                self.bar.write(f'  {line}', file=self.stream)
            self.bar.update(1)
        elif self.enabled:
            print(f'  [{self.count}/{self.total}] {line or "done"}', file=self.stream, flush=True)

    def say(self, line: str) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run(fn: Callable[[Any], Any], jobs: Sequence[Any], *, workers: int | None = 1,
        scheduler: str | None = None, describe: Callable[[Outcome], str] | None = None,
        progress: bool = False, stream: TextIO | None = None, unit: str = 'run') -> list[Outcome]:
    """Run `fn(job)` for every job; the outcomes in job order.

    `fn` must be a module-level function (a worker imports it by name) and each job and result
    picklable. `workers`: 1 runs in this process; N > 1 on a local cluster of N processes (never
    more than there are jobs); None: the machine's cores. `scheduler`: an existing cluster's
    address (then `workers` is ignored). `describe` gives the progress line of a finished run.
    """
    jobs = list(jobs)
    report = Progress(len(jobs), progress, stream, unit)
    if workers is None:
        workers = default_workers()
        if scheduler is None and workers > 1 and len(jobs) > 1 and not _have_distributed():
            # A ROS install without dask (package.xml cannot name it): asked for nothing, the
            # sweep runs as it always did; --workers N and --scheduler say what is missing.
            report.say('dask.distributed is not installed: the runs go one after another')
            workers = 1
    try:
        if scheduler is None and min(workers, len(jobs)) <= 1:
            outcomes = []
            for job in jobs:
                outcomes.append(attempt(fn, job))
                report.done(describe(outcomes[-1]) if describe else None)
            return outcomes
        return _distributed(fn, jobs, min(workers, len(jobs)), scheduler, describe, report)
    finally:
        report.close()


def _have_distributed() -> bool:
    import importlib.util
    return importlib.util.find_spec('distributed') is not None


def _distributed(fn: Callable[[Any], Any], jobs: list[Any], workers: int, scheduler: str | None,
                 describe: Callable[[Outcome], str] | None, report: Progress) -> list[Outcome]:
    try:
        from distributed import as_completed, Client, LocalCluster
        from distributed.diagnostics.plugin import SchedulerPlugin
    except ImportError:
        raise SweepError('--workers above 1 and --scheduler need dask.distributed: '
                         "pip install 'dask[distributed]' (or --workers 1)") from None

    class Deaths(SchedulerPlugin):
        """Counts the local workers that left while the sweep ran: dask's own warning is silenced
        with its other log lines, and a rerun run should not go unsaid.
        """

        name = 'thymio-road-sweep-deaths'

        def __init__(self) -> None:
            self.lost = 0
            self.running = True

        def remove_worker(self, scheduler: Any, worker: str, **kwargs: Any) -> None:
            if self.running:
                self.lost += 1

    deaths = Deaths()
    said = 0
    cluster = client = None
    futures: list[Any] = []
    try:
        if scheduler is None:
            # No dashboard (no fixed port to collide with another sweep on the machine), one
            # thread per process (the simulation holds the GIL), dask's own logs only on errors.
            import dask
            with dask.config.set(WORKER_CONFIG):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
            cluster.scheduler.add_plugin(deaths)
            client = Client(cluster)
            report.say(f'{len(jobs)} {_plural(report.unit, len(jobs))} on {workers} local worker processes')
        else:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise SweepError(f'argument --scheduler: cannot reach the dask scheduler at {scheduler} '
                                 f'in {CONNECT_TIMEOUT} s ({exc})') from None
            count = len(client.scheduler_info(n_workers=-1).get('workers', {}))
            report.say(f'{len(jobs)} {_plural(report.unit, len(jobs))} on the scheduler at {scheduler} '
                       f'({count} worker{"" if count == 1 else "s"} now'
                       + ('; the runs start when workers connect)' if not count else ')'))
        futures = [client.submit(attempt, fn, job, pure=False, retries=RETRIES) for job in jobs]
        where = {future.key: k for k, future in enumerate(futures)}
        outcomes: list[Outcome | None] = [None] * len(jobs)
        for future in as_completed(futures):
            k = where[future.key]
            try:
                outcomes[k] = future.result()
            except Exception as exc:  # noqa: BLE001 - KilledWorker (died too often), lost data
                outcomes[k] = Outcome(jobs[k], error=f'{type(exc).__name__}: {exc}',
                                      traceback=traceback.format_exc())
            if deaths.lost > said:
                said = deaths.lost
                report.say(f'a worker process died ({said} so far); the scheduler reruns its run on another')
            report.done(describe(outcomes[k]) if describe else None)
        return outcomes  # type: ignore[return-value]
    except KeyboardInterrupt:
        report.say('interrupted: closing the cluster')
        raise
    finally:
        deaths.running = False
        # Also on Ctrl-C: a shared cluster must not go on with runs nobody waits for.
        if client is not None:
            if futures:
                try:
                    client.cancel(futures)
                except Exception:  # noqa: BLE001 - closing anyway
                    pass
            client.close()
        if cluster is not None:
            cluster.close()


def _plural(unit: str, n: int) -> str:
    return unit if n == 1 else unit + 's'
