"""The simulated world: the Thymio's body (robot model), motion, contacts, sensors and noise.

Imports only ``map``; knows nothing of controllers or ROS.
"""
