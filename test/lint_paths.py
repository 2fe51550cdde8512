# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""What the ament linter tests (test_flake8, test_pep257, test_copyright) check, and from where."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Every Python file of the package: its two Python packages, the tests, the launch files, the
# benchmarks and setup.py. Named one by one rather than '.', so that what pip or colcon leave in
# the checkout (build/, install/, runs/, a venv) is not linted.
PATHS = ['thymio_road', 'swarm_comm', 'test', 'launch', 'benchmarks', 'setup.py']


def missing(module):
    """Return why a linter test cannot run (its ament package or its checker is not installed), or None."""
    import importlib.util
    if importlib.util.find_spec(module) is None:
        return f'{module} is not installed: pip install ".[test]" (setup.py\'s test extra) brings it'
    return None
