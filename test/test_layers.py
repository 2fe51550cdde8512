# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The package layout is the architecture: no import circle, and no import up the layers.

Every import counts, also those inside functions. A layer may import its own package and the
layers below it, never one beside it or above it (thymio_road/__init__.py draws the stack).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ('thymio_road', 'swarm_comm')

#: Rank of each layer: a module may import from a layer of lower rank, or from its own layer.
#: Layers of equal rank are siblings and must not import each other.
LAYERS = {
    'thymio_road.map': 0,
    'thymio_road.control': 1,
    'thymio_road.sim': 1,
    'thymio_road.generator': 1,
    'thymio_road.real': 2,
    'swarm_comm': 2,
    'thymio_road.calibration': 3,
    'thymio_road.scenario': 4,
    'thymio_road.nodes': 5,
    'thymio_road.analysis': 5,
    'thymio_road.runtime': 6,
    'thymio_road.ros': 6,
    'thymio_road.experiments': 7,
    'thymio_road.cli': 8,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob('*.py'))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Our modules that `name` imports, anywhere in the file (functions included)."""
    is_package = path.name == '__init__.py'
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split('.')
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                module = '.'.join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ''
            # `from package import submodule` imports the submodule.
            targets = [module] + [f'{module}.{a.name}' for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition('.')[0]
            if target and target != name:
                found.add(target)
    return found


def _layer(module: str) -> str | None:
    matches = [layer for layer in LAYERS if module == layer or module.startswith(layer + '.')]
    return max(matches, key=len) if matches else None


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (as a path that returns to its start), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            # A package's __init__ is not a dependency of its own submodules' imports.
            if node.startswith(nxt + '.'):
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_every_module_belongs_to_a_layer():
    loose = [m for m in _modules() if m not in PACKAGES and _layer(m) is None]
    assert not loose, f'modules outside every layer (add them to a subpackage or to LAYERS): {loose}'


def test_no_import_circle():
    cycle = _cycle(_graph())
    assert cycle is None, 'import circle: ' + ' -> '.join(cycle)


def test_imports_point_down_the_layers():
    upward = []
    for module, targets in sorted(_graph().items()):
        here = _layer(module)
        if here is None:
            continue
        for target in sorted(targets):
            there = _layer(target)
            if there is None or there == here:
                continue
            if LAYERS[there] >= LAYERS[here]:
                upward.append(f'{module} imports {target} ({here} rank {LAYERS[here]} -> '
                              f'{there} rank {LAYERS[there]})')
    assert not upward, 'imports that do not point down:\n' + '\n'.join(upward)


def test_the_checker_sees_imports_inside_functions_and_cycles():
    """The checks above would fail on the layout this test exists to prevent."""
    source = 'def f():\n    from thymio_road.sim.world import World\n'
    tree_imports = _imports_from_source('thymio_road.map.fake', source, {'thymio_road.sim.world'})
    assert tree_imports == {'thymio_road.sim.world'}
    assert _cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a', 'b', 'c', 'a']
    assert _cycle({'a': {'b'}, 'b': set()}) is None


def _imports_from_source(name: str, source: str, known: set[str], tmp: Path | None = None) -> set[str]:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / 'fake.py'
        path.write_text(source)
        return _imports(name, path, known)


@pytest.mark.parametrize('module', ['thymio_road.cli.main', 'thymio_road.nodes.world_node',
                                    'thymio_road.nodes.controller_node', 'thymio_road.nodes.ir_medium_node',
                                    'thymio_road.nodes.traffic_light_node', 'thymio_road.nodes.driver_node'])
def test_entry_points_resolve(module):
    """The console scripts of setup.py (and the ROS executables) import and have main()."""
    import importlib
    assert callable(importlib.import_module(module).main)
