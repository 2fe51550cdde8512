"""Thymio road network: printed gradient roads, barcodes, intersections and traffic lights.

Subpackages by concept, each importing only the ones below it (``test/test_layers.py`` checks):
``cli`` → ``experiments`` → ``runtime``, ``ros`` → ``analysis``, ``nodes`` → ``scenario`` →
``calibration`` → ``real`` → ``control``, ``sim``, ``generator`` → ``map``. ``swarm_comm`` sits
between ``sim`` (whose robot model it uses) and ``scenario``.
"""
