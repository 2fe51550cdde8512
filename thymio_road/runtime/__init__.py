# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Embedded runtime: the node graph in one process on simulated time, recorded to rosbag2.

Imports ``nodes`` (which it runs), ``analysis`` (measures, pictures) and everything below them.
"""
