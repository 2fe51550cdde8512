# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Signals during a run: a stop between callbacks, and nothing during closing (runtime/interrupt.py)."""
from __future__ import annotations

import io
import os
import signal

import pytest

from thymio_road.runtime.interrupt import StopRequest


def test_a_signal_stops_at_the_next_check_not_where_it_lands():
    stream = io.StringIO()
    stop = StopRequest(stream)
    with stop.installed():
        os.kill(os.getpid(), signal.SIGINT)  # would raise KeyboardInterrupt right here by default
        assert 'SIGINT: stopping the run once its nodes are built' in stream.getvalue()
        stop.signum = 0
        stop.started = True  # the run's nodes are built
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.signum == signal.SIGINT
        with pytest.raises(KeyboardInterrupt):
            stop.check(0)
        os.kill(os.getpid(), signal.SIGTERM)
    assert stream.getvalue().splitlines()[1:] == ['SIGINT: stopping the run', 'SIGTERM: already stopping']


def test_signals_while_closing_are_ignored_and_said_so():
    stream = io.StringIO()
    stop = StopRequest(stream)
    stop.started = True
    with stop.installed():
        with pytest.raises(KeyboardInterrupt):
            with stop.running('closing the bag…'):
                os.kill(os.getpid(), signal.SIGTERM)
                stop.check(0)
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        stop.check(0)  # closing: no stop any more
    lines = stream.getvalue().splitlines()
    assert lines[0] == 'SIGTERM: stopping the run' and lines[1] == 'closing the bag…'
    assert lines[2:] == [f'{name}: closing the bag… (ignored: the outputs are being written)'
                         for name in ('SIGINT', 'SIGTERM')]


def test_the_previous_handlers_come_back():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with StopRequest(io.StringIO()).installed():
        assert signal.getsignal(signal.SIGINT) != before[0]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_run_without_signal_says_closing_unless_quiet():
    for quiet, expected in ((False, 'closing the bag…\n'), (True, '')):
        stream = io.StringIO()
        stop = StopRequest(stream)
        with stop.running('closing the bag…', quiet=quiet):
            stop.check(0)
        assert stream.getvalue() == expected and stop.closing
