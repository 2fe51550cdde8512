# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""A node process imports what its node needs, not the simulator: each ROS 2 process pays for every
library it loads (issue #30: a controller on the final map held 200 MB, the floor is 150 MB).
"""
from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parent.parent
#: Libraries only the world (numba kernels), the rasters (scipy) and the pictures (matplotlib) need.
HEAVY = ('numba', 'llvmlite', 'scipy', 'matplotlib', 'thymio_road.scenario', 'thymio_road.sim.world')

CONTROLLER_WITH_A_MAP_FILE = f"""
import re, sys
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.nodes.controller_node import ControllerNode
node = ControllerNode(EmbeddedNode(Executor(), 'controller', '/thymio1',
                                   {{'map_file': {str(ROOT / 'config' / 'maps' / 'final.yaml')!r}, 'mission': '3,1'}}))
assert node.navigator is not None and node.navigator.mission == [3, 1], node.navigator
print(' '.join(m for m in {HEAVY!r} if m in sys.modules))
# VmHWM, not ru_maxrss, which Linux keeps across the exec from a big pytest process
print(int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) // 1024)
"""


def test_a_controller_given_the_map_file_loads_no_simulator_library():
    """The launch file passes `map_file`: the controller read it through the scenario module, which imports
    the simulator (numba, llvmlite, scipy).
    """
    out = subprocess.run([sys.executable, '-c', CONTROLLER_WITH_A_MAP_FILE], capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()
    assert out[0] == '', f'a controller process imported {out[0]}'
    assert int(out[1]) < 120, f'peak RSS {out[1]} MB'
