# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The real Thymio: the driver's pure core, the tdmclient link and the Aseba program it runs.

Imports ``sim.robot_model`` (the Thymio's facts: motor law, sensors) and ``map``; nothing above.
"""
