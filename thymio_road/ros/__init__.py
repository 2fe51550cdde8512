"""What only a ROS install uses: the launch plan of the launch files and RViz config generation.

Pure functions (no ROS imports); imports ``scenario``, ``real`` and below.
"""
