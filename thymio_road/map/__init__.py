# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The printed map: geometry, roads and their raster, barcodes, intersections, the road graph,
traffic-light places, validation and print export.

The bottom layer: imports nothing else of thymio_road.
"""
