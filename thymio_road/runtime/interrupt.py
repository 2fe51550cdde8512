# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Ctrl-C and SIGTERM during a run: a request to stop between callbacks, then a close that cannot be cut.

Python's own Ctrl-C raises KeyboardInterrupt wherever the main thread happens to be, for instance
inside the bag writer between a message's index entry and its bytes, and a second Ctrl-C while the
bag closes left it without summary or ``metadata.yaml`` (issue #16). So the handlers only note the
request; the executor's time callback (:meth:`StopRequest.check`) stops the run at the next time
step, and while the outputs are written (bag, metadata, summary, picture) further signals are
ignored with a note. SIGKILL cannot be caught: ``thymio-road bag repair`` is for that.
"""
from __future__ import annotations

from contextlib import contextmanager
import signal
import sys
from typing import Any, Iterator, TextIO

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """SIGINT/SIGTERM handlers that turn a signal into a stop between callbacks."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        #: The first signal received (0: none).
        self.signum = 0
        self.closing = False
        #: False until the run's nodes are built: a stop waits for them (it can take seconds).
        self.started = False

    def _say(self, text: str) -> None:
        stream = self.stream or sys.stderr
        print(text, file=stream, flush=True)

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.closing:
            self._say(f'{name}: closing the bag… (ignored: the outputs are being written)')
        elif not self.signum:
            self.signum = signum
            self._say(f'{name}: stopping the run' + ('' if self.started else ' once its nodes are built'))
        else:
            self._say(f'{name}: already stopping')

    @contextmanager
    def installed(self) -> Iterator['StopRequest']:
        """Install the handlers for the block (only from the main thread; elsewhere a no-op)."""
        previous = {}
        try:
            for sig in _SIGNALS:
                previous[sig] = signal.signal(sig, self._handle)
        except ValueError:  # not in the main thread: signals are not ours to handle
            pass
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def check(self, now_ns: int = 0) -> None:
        """Raise KeyboardInterrupt when a stop was requested (called between callbacks)."""
        if self.signum and not self.closing:
            raise KeyboardInterrupt

    @contextmanager
    def running(self, closing_message: str | None, quiet: bool = False) -> Iterator[None]:
        """The block the signals may stop; on leaving it, however, closing starts.

        `closing_message` is printed when closing starts after a signal, or always unless quiet.
        """
        try:
            yield
        finally:
            self.closing = True
            if closing_message and (self.signum or not quiet):
                self._say(closing_message)
