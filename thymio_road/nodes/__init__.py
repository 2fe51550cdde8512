# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Thin ROS 2 node classes and their entry points, over the rclpy API subset (see
thymio_road.runtime.node), and the message facade they speak (``msgs``).

Imports ``scenario``, ``control``, ``sim``, ``real``, ``map`` and ``swarm_comm``; never a runtime.
"""
