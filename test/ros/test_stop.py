# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""A real rclpy node process stops on SIGINT; one whose stop gets stuck says where within
ros_main's grace and leaves, instead of ignoring SIGINT and SIGTERM until SIGKILL.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from thymio_road.nodes.stop_watchdog import STOP_GRACE

NODE = textwrap.dedent("""
    import sys, time
    from thymio_road.nodes.ros_main import spin

    class Node:
        def __init__(self, node):
            node.create_timer(0.01, lambda: None)
            print('spinning', flush=True)

        def close(self):
            time.sleep({close_seconds})

    spin('stuck', Node, sys.argv)
""")


def _run_and_stop(ros_env, close_seconds: float) -> tuple[int, str, float]:
    proc = subprocess.Popen([sys.executable, '-c', NODE.format(close_seconds=close_seconds)], env=ros_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout.readline().strip() == 'spinning'
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        out, _ = proc.communicate(timeout=STOP_GRACE + 20)
        return proc.returncode, out, time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize('close_seconds', [0.0, 0.5])
def test_a_node_stops_cleanly_on_sigint(ros_env, close_seconds):
    code, out, _ = _run_and_stop(ros_env, close_seconds)
    assert code == 0 and 'did not stop' not in out, out


def test_a_node_stuck_in_its_close_says_where_and_leaves(ros_env):
    code, out, took = _run_and_stop(ros_env, 120)
    assert code == 1, out
    assert f'[stuck] did not stop within {STOP_GRACE:g} s of SIGINT (stuck while closing)' in out
    assert 'in close' in out   # faulthandler's line for the stuck frame
    assert STOP_GRACE <= took < STOP_GRACE + 5
