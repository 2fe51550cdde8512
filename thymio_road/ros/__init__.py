# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What only a ROS install uses: the launch plan of the launch files and RViz config generation.

Pure functions (no ROS imports); imports ``scenario``, ``real`` and below.
"""
