# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A node process stuck after its stop signal says where, and leaves: code 0 when only rclpy's
teardown was left, 1 otherwise; a stop in time, or no signal at all, leaves it alone.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from thymio_road.nodes.stop_watchdog import StopWatchdog

GRACE = 0.3


@pytest.fixture
def flagged():
    """SIGINT only noted (as ros_main's handler does), put back afterwards."""
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    yield received
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def watchdog(tmp_path):
    exits = []
    dog = StopWatchdog('world', grace=GRACE, stream=open(tmp_path / 'stderr', 'w+'), leave=exits.append)
    dog.exits = exits
    yield dog
    dog.stop()
    dog.stream.close()


def _output(dog):
    dog.stream.flush()
    dog.stream.seek(0)
    return dog.stream.read()


def _stuck_in_close(seconds):
    time.sleep(seconds)


def test_a_stop_stuck_in_the_nodes_close_prints_the_stacks_and_exits_1(flagged, watchdog):
    watchdog.start()
    os.kill(os.getpid(), signal.SIGINT)
    watchdog.closing()
    _stuck_in_close(GRACE + 0.5)
    assert flagged == [signal.SIGINT]
    assert watchdog.exits == [1]
    text = _output(watchdog)
    assert f'[world] did not stop within {GRACE:g} s of SIGINT (stuck while closing); forcing exit' in text
    assert '_stuck_in_close' in text   # the main thread's stack names where it is


def test_a_stop_stuck_in_rclpy_teardown_exits_0(flagged, watchdog):
    watchdog.start()
    os.kill(os.getpid(), signal.SIGINT)
    watchdog.teardown()
    time.sleep(GRACE + 0.5)
    assert watchdog.exits == [0]
    assert 'stuck while teardown); leaving rclpy teardown unfinished' in _output(watchdog)


def test_a_stop_in_time_is_left_alone_and_the_wakeup_descriptor_is_put_back(flagged, watchdog):
    before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before)
    watchdog.start()
    os.kill(os.getpid(), signal.SIGINT)
    watchdog.teardown()
    watchdog.stop()
    time.sleep(GRACE + 0.2)
    assert watchdog.exits == [] and _output(watchdog) == ''
    assert signal.set_wakeup_fd(before) == before


def test_without_a_stop_signal_nothing_happens(flagged, watchdog):
    watchdog.start()
    time.sleep(GRACE + 0.3)
    watchdog.stop()
    assert watchdog.exits == [] and flagged == []


def test_a_teardown_stuck_holding_the_gil_is_ended_by_the_backstop(tmp_path):
    """A regular expression that backtracks for minutes holds the GIL: the watching thread cannot
    run, faulthandler's own thread ends the process with code 1 and the stack.
    """
    script = textwrap.dedent(f"""
        import re
        from thymio_road.nodes.stop_watchdog import StopWatchdog
        dog = StopWatchdog('world', grace={GRACE})
        dog.start()
        dog.teardown()
        re.match(r'(a+)+$', 'a' * 40 + 'b')
        print('finished')
    """)
    start = time.monotonic()
    done = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert time.monotonic() - start < 30
    assert 'Timeout' in done.stderr and 'finished' not in done.stdout
