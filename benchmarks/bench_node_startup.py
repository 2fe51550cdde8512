# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Start-up time and peak memory of each node class, each in a fresh process.

Run: python benchmarks/bench_node_startup.py [--scenarios oval final_traffic] [--json out.json]

On ROS 2 every node is its own process, so each pays its own scenario and map load. For each
scenario and node class (world, controller, ir_medium, traffic_light) a fresh Python process
builds the node's parameters with ``node_specs`` and constructs the class on an embedded node
handle, as ``ros2 run`` would on rclpy. It reports:

- ``import``: importing the node modules (numpy, scipy, rosbags...);
- ``start``: constructing the node class (scenario and map load, the world's raster...), wall
  and CPU time (the CPU time is what counts on a machine shared with other work);
- ``first``: for the world, running simulated time to 0.2 s (every robot's first sensor event,
  which once built the blind-area mask of the whole sheet);
- ``peak``: the process's peak resident memory (VmHWM; ru_maxrss would carry the parent's peak through exec).

Aims (issue #14): the world on the final map starts in under 3 s and under 500 MB, each
controller stays under 150 MB.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys

os.environ.setdefault('THYMIO_ROAD_EMBEDDED', '1')
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NODES = ('thymio_world', 'thymio_controller', 'thymio_ir_medium', 'thymio_traffic_light')

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from thymio_road.runtime.executor import Executor
from thymio_road.runtime.node import EmbeddedNode
from thymio_road.runtime.run import NODE_CLASSES
spec = json.loads(sys.argv[1])
t1, c1 = time.perf_counter(), time.process_time()
executor = Executor()
node = NODE_CLASSES[spec['executable']](EmbeddedNode(executor, spec['name'], spec['namespace'],
                                                     spec['parameters'], dict(spec['remappings'])))
t2, c2 = time.perf_counter(), time.process_time()
first = None
if spec['executable'] == 'thymio_world':
    executor.run_until(200_000_000)
    first = time.perf_counter() - t2
print(json.dumps({'import': t1 - t0, 'start': t2 - t1, 'start_cpu': c2 - c1, 'first': first,
                  'peak_mb': int(next(l.split()[1] for l in open('/proc/self/status')
                                      if l.startswith('VmHWM:'))) / 1024}))
"""


def measure(scenario: str, executable: str) -> dict | None:
    """One node of the scenario (the first of its kind) in a fresh process, with the parameters
    node_specs gives it (as the launch files pass them).
    """
    from thymio_road.scenario import load_scenario, node_specs
    spec = next((s for s in node_specs(load_scenario(scenario)) if s.executable == executable), None)
    if spec is None:
        return None
    arg = json.dumps({'executable': spec.executable, 'name': spec.name, 'namespace': spec.namespace,
                      'parameters': spec.parameters, 'remappings': list(spec.remappings)})
    out = subprocess.run([sys.executable, '-c', CHILD, arg], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scenarios', nargs='+', default=['oval', 'final_traffic'])
    parser.add_argument('--json', type=Path)
    args = parser.parse_args()
    results = {}
    print(f"{'scenario':<14} {'node':<22} {'import s':>8} {'start s':>8} {'cpu s':>8} {'first s':>8} {'peak MB':>8}")
    for scenario in args.scenarios:
        for executable in NODES:
            r = measure(scenario, executable)
            results[f'{scenario}/{executable}'] = r
            if r is None:
                print(f'{scenario:<14} {executable:<22} {"(not in this scenario)":>44}')
                continue
            first = f"{r['first']:8.2f}" if r['first'] is not None else f"{'':>8}"
            print(f"{scenario:<14} {executable:<22} {r['import']:8.2f} {r['start']:8.2f} {r['start_cpu']:8.2f} {first} "
                  f"{r['peak_mb']:8.0f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == '__main__':
    main()
