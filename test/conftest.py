# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Tests run the embedded runtime: rosbags message types even where rclpy is installed."""
import os
from pathlib import Path
import sys

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pytest_configure(config):
    config.addinivalue_line('markers', 'slow: a scenario test of several seconds or more; '
                                       "the inner loop skips them with -m 'not slow', CI runs all")
    # the ament linters' markers, as their pytest plugins register them (test_flake8, test_pep257, test_copyright
    # run where those are not installed too)
    config.addinivalue_line('markers', 'linter: marks tests as linter checks')
    config.addinivalue_line('markers', 'flake8: marks tests checking for flake8 compliance')
    config.addinivalue_line('markers', 'pep257: marks tests checking for PEP 257 compliance')
    config.addinivalue_line('markers', 'copyright: marks tests checking for a copyright statement in non-empty source '
                                       'files')
