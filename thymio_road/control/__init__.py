"""The robot's mind: the report's state machine, navigation on the road graph, and the traffic
lights' rules; pure, free of ROS.

Imports only ``map``; never the simulated world, so the same controller drives real robots.
"""
