"""The real Thymio: the driver's pure core, the tdmclient link and the Aseba program it runs.

Imports ``sim.robot_model`` (the Thymio's facts: motor law, sensors) and ``map``; nothing above.
"""
