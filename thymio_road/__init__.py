"""Thymio road network: printed gradient roads, barcodes, intersections and traffic lights."""
