# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A node process that does not stop within a few seconds of its stop signal says where it is
stuck, and leaves.

ros_main's stop signals only set a flag that the spin loop reads between callbacks, so a process
whose main thread is stuck (a callback that does not return, or DDS teardown waiting on a peer that
is gone: known Fast DDS and rclpy hangs) ignores SIGINT and SIGTERM alike, and launch has to
SIGKILL it 15 s later without a word about where it was (seen once in CI, 2026-11-28). The signal's
C-level handler still writes to `signal.set_wakeup_fd` at once, whatever the main thread does, so
a thread waiting on that descriptor knows when the stop began; after `grace` seconds it prints
every thread's stack and ends the process: with code 0 when the node's own work is done (its
close ran, only rclpy's teardown is left: nothing is lost by not waiting for it), otherwise 1.
That thread needs the GIL; a teardown stuck while holding it is caught by faulthandler's own
thread (`dump_traceback_later`, exit code 1), armed when the teardown starts.
"""
from __future__ import annotations

import faulthandler
import os
import signal
import socket
import sys
import threading
from typing import Callable, TextIO

#: Seconds from the first stop signal to the forced exit: inside launch's 5 s before it escalates
#: to SIGTERM (and 15 s before SIGKILL), and far above a normal stop (well under a second).
STOP_GRACE = 4.0
#: Extra seconds the GIL-free backstop waits after the teardown started.
BACKSTOP_MARGIN = 1.0


class StopWatchdog:
    """Watches the stop of one node process (create and `start` it in the main thread)."""

    def __init__(self, name: str, grace: float = STOP_GRACE, stream: TextIO | None = None,
                 leave: Callable[[int], None] = os._exit) -> None:
        self.name = name
        self.grace = grace
        self.stream = stream
        self._leave = leave
        self._done = threading.Event()
        #: What the process is doing: 'running', then 'closing' (its node's close), 'teardown'.
        self.phase = 'running'
        self._reader: socket.socket | None = None
        self._writer: socket.socket | None = None
        self._previous_fd = -1
        self._thread: threading.Thread | None = None
        self._backstop = False

    def start(self) -> None:
        """Route signal wake-ups to the watching thread and start it."""
        self._reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        self._thread = threading.Thread(target=self._watch, name=f'{self.name}-stop-watchdog', daemon=True)
        self._thread.start()

    def closing(self) -> None:
        self.phase = 'closing'

    def teardown(self) -> None:
        """The node's own work is done; from here on only rclpy's teardown is left."""
        self.phase = 'teardown'
        self.backstop()

    def backstop(self) -> None:
        """Arm faulthandler's exit for a stop stuck while holding the GIL (where the thread cannot run)."""
        try:
            faulthandler.dump_traceback_later(self.grace + BACKSTOP_MARGIN, exit=True,
                                              file=self.stream or sys.stderr)
        except (AttributeError, ValueError, OSError):  # a stream without a file descriptor
            faulthandler.dump_traceback_later(self.grace + BACKSTOP_MARGIN, exit=True, file=sys.__stderr__)
        self._backstop = True

    def stop(self) -> None:
        """The process stopped: disarm everything and put the previous wake-up descriptor back."""
        self._done.set()
        if self._backstop:
            faulthandler.cancel_dump_traceback_later()
            self._backstop = False
        if self._reader is None:
            return
        signal.set_wakeup_fd(self._previous_fd)
        try:
            self._writer.send(b'\0')   # wakes the thread if no signal came
        except OSError:
            pass
        self._thread.join()
        self._reader.close()
        self._writer.close()
        self._reader = self._writer = self._thread = None

    def _watch(self) -> None:
        try:
            data = self._reader.recv(64)
        except OSError:
            return
        signals = [_signal_name(b) for b in data if b]
        if self._done.is_set() or not signals:
            return
        if self._done.wait(self.grace):
            return
        stream = self.stream or sys.stderr
        code = 0 if self.phase == 'teardown' else 1
        print(f'[{self.name}] did not stop within {self.grace:g} s of {signals[0]} '
              f'(stuck while {self.phase}); {"leaving rclpy teardown unfinished" if code == 0 else "forcing exit"}.'
              ' Stacks:', file=stream, flush=True)
        faulthandler.dump_traceback(file=stream, all_threads=True)
        stream.flush()
        self._leave(code)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f'signal {number}'
