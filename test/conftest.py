"""Tests run the embedded runtime: rosbags message types even where rclpy is installed."""
import os
import sys
from pathlib import Path

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pytest_configure(config):
    config.addinivalue_line('markers', 'slow: a scenario test of several seconds or more; '
                                       "the inner loop skips them with -m 'not slow', CI runs all")
