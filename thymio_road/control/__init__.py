# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The robot's mind: the report's state machine, navigation on the road graph, and the traffic
lights' rules; pure, free of ROS.

Imports only ``map``; never the simulated world, so the same controller drives real robots.
"""
