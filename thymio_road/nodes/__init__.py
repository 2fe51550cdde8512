"""Thin ROS 2 node classes and their entry points, over the rclpy API subset (see
thymio_road.runtime.node), and the message facade they speak (``msgs``).

Imports ``scenario``, ``control``, ``sim``, ``real``, ``map`` and ``swarm_comm``; never a runtime.
"""
