"""Embedded runtime: the node graph in one process on simulated time, recorded to rosbag2.

Imports ``nodes`` (which it runs), ``analysis`` (measures, pictures) and everything below them.
"""
