"""Reproductions of the report's experiments (barcode reading, intersection passages) and their
scoring against ground truth.

Imports ``runtime``, ``analysis`` and everything below them.
"""
