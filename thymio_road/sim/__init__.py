# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The simulated world: the Thymio's body (robot model), motion, contacts, sensors and noise.

Imports only ``map``; knows nothing of controllers or ROS.
"""
