# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Thymio road network: printed gradient roads, barcodes, intersections and traffic lights.

Subpackages by concept, each importing only the ones below it (``test/test_layers.py`` checks):
``cli`` → ``experiments`` → ``runtime``, ``ros`` → ``analysis``, ``nodes`` → ``scenario`` →
``calibration`` → ``real`` → ``control``, ``sim``, ``generator`` → ``map``. ``swarm_comm`` sits
between ``sim`` (whose robot model it uses) and ``scenario``.
"""
