# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Entry points for running one node class as a plain rclpy process (ROS 2 runtime only)."""
from __future__ import annotations

import signal
import sys
from typing import Any, Callable

from .stop_watchdog import StopWatchdog

#: Exit code of a node refused at start-up for a bad parameter or scenario (as the CLI's).
BAD_INPUT = 2
#: The signals that stop a node: Ctrl-C, and `thymio-road ros`/launch stopping its children.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Longest wait for work before the stop flag is looked at again [s].
STOP_POLL = 0.1

#: Stop signals received since `spin` began.
_received: list[int] = []


def spin(name: str, node_class: Callable[[Any], Any], args: list[str] | None = None) -> None:
    """rclpy.init, create the node, wrap it with `node_class`, spin until a stop signal, clean up.

    A bad parameter or scenario (a ValueError naming the node, parameter or file and the value)
    is logged as one fatal line and the process exits with code 2, no traceback.

    SIGINT and SIGTERM only set a flag that the spin loop reads between callbacks. Neither of
    rclpy's ways works without tracebacks on an ordinary stop: Python's KeyboardInterrupt is
    raised wherever the interpreter is, inside rclpy taking a message ("RuntimeError: Unable to
    convert call argument '0'", the IR medium at 1 stop in 10) or half-way through building a
    Task (an AttributeError from Future.__del__ at exit); rclpy's own handler shuts the context
    down from another thread while the executor builds its wait set ("RCLError: failed to
    initialize wait set", 9 stops in 20). A process still running a few seconds after the signal
    prints where it is stuck and leaves (:class:`StopWatchdog`).
    """
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.signals import SignalHandlerOptions
    _received.clear()
    previous = {sig: signal.signal(sig, _flag_stop) for sig in STOP_SIGNALS}
    watchdog = StopWatchdog(name)
    watchdog.start()
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        try:
            _run(name, node_class, rclpy, SingleThreadedExecutor, watchdog)
        finally:
            watchdog.backstop()
            if rclpy.ok():
                rclpy.shutdown()
    finally:
        watchdog.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _flag_stop(signum: int, frame: Any) -> None:
    _received.append(signum)


def _run(name: str, node_class: Callable[[Any], Any], rclpy: Any, executor_class: Callable[[], Any],
         watchdog: StopWatchdog) -> None:
    if _received:  # stopped during start-up
        return
    node = rclpy.create_node(name)
    try:
        wrapper = node_class(node)
    except (ValueError, FileNotFoundError) as exc:  # ConfigError and ParameterTypeError too
        node.get_logger().fatal(str(exc))
        node.destroy_node()
        rclpy.shutdown()
        sys.exit(BAD_INPUT)
    executor = executor_class()
    executor.add_node(node)
    try:
        while not _received:
            executor.spin_once(timeout_sec=STOP_POLL)
    finally:
        watchdog.closing()
        executor.remove_node(node)
        close = getattr(wrapper, 'close', None)
        if close is not None:
            close()
        watchdog.teardown()
        node.destroy_node()
        executor.shutdown()
