"""Entry points for running one node class as a plain rclpy process (ROS 2 runtime only)."""
from __future__ import annotations

import sys
from typing import Any, Callable

#: Exit code of a node refused at start-up for a bad parameter or scenario (as the CLI's).
BAD_INPUT = 2


def spin(name: str, node_class: Callable[[Any], Any], args: list[str] | None = None) -> None:
    """rclpy.init, create the node, wrap it with `node_class`, spin until Ctrl-C, clean up.

    A bad parameter or scenario (a ValueError naming the node, parameter or file and the value)
    is logged as one fatal line and the process exits with code 2, no traceback.
    """
    import rclpy
    try:
        from rclpy.executors import ExternalShutdownException
    except ImportError:  # pragma: no cover - older rclpy
        ExternalShutdownException = KeyboardInterrupt  # noqa: N806
    rclpy.init(args=args)
    node = rclpy.create_node(name)
    try:
        wrapper = node_class(node)
    except (ValueError, FileNotFoundError) as exc:  # ConfigError and ParameterTypeError too
        node.get_logger().fatal(str(exc))
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
        sys.exit(BAD_INPUT)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        close = getattr(wrapper, 'close', None)
        if close is not None:
            close()
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
