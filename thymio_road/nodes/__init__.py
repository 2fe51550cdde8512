"""Thin node classes over the rclpy API subset (see thymio_road.runtime.node)."""
