"""Embedded runtime: the node graph in one process on simulated time, recorded to rosbag2."""
