"""The printed map: geometry, roads and their raster, barcodes, intersections, the road graph,
traffic-light places, validation and print export.

The bottom layer: imports nothing else of thymio_road.
"""
