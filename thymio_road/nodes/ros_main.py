"""Entry points for running one node class as a plain rclpy process (ROS 2 runtime only)."""
from __future__ import annotations

from typing import Any, Callable


def spin(name: str, node_class: Callable[[Any], Any], args: list[str] | None = None) -> None:
    """rclpy.init, create the node, wrap it with `node_class`, spin until Ctrl-C, clean up."""
    import rclpy
    try:
        from rclpy.executors import ExternalShutdownException
    except ImportError:  # pragma: no cover - older rclpy
        ExternalShutdownException = KeyboardInterrupt  # noqa: N806
    rclpy.init(args=args)
    node = rclpy.create_node(name)
    wrapper = node_class(node)
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
