# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Declaring node parameters with fixed types, on rclpy and on the embedded runtime alike.

rclpy types a parameter by its default's Python type and refuses an override of another type
(``InvalidParameterTypeException``): a scenario's ``ground_noise: 10`` or ``-p mission:=5`` would
kill the node. So each parameter is declared with its dataclass field's type and
``dynamic_typing``, and the value given is then converted here where that loses nothing
(int → float, int → str) or refused with a message naming the node, the parameter and the value.

Nodes read nearly all their parameters once, in their constructor: those are declared read-only,
so that ``ros2 param set`` is refused instead of reporting a success that changes nothing. The
few that take effect at run time are declared with ``read_only=False`` and the node applies them
in a set-parameters callback (docs/ros2.md lists them).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from thymio_road.nodes import msgs


class ParameterTypeError(ValueError):
    """A parameter given with a type that cannot be converted to the declared one."""


_TYPE_NAMES = {bool: 'a boolean', int: 'an integer', float: 'a number', str: 'a string'}


def convert(value: Any, kind: type, where: str) -> Any:
    """`value` as `kind` when no information is lost; raises ParameterTypeError otherwise."""
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif isinstance(value, bool):
        pass  # a boolean is never a number or a word here
    elif isinstance(value, kind):
        return value
    elif kind is float and isinstance(value, int):
        return float(value)
    elif kind is str and isinstance(value, int):
        return str(value)  # `-p mission:=5` arrives as an integer
    raise ParameterTypeError(f'{where}: must be {_TYPE_NAMES.get(kind, kind.__name__)}, '
                             f'got {value!r} ({type(value).__name__})')


def declare(node: Any, name: str, default: Any, kind: type | None = None, read_only: bool = True) -> Any:
    """Declare `name` with a default of type `kind` (default: the default's type); its value."""
    kind = kind or type(default)
    where = f"{node.get_namespace().rstrip('/')}/{node.get_name()}: parameter {name}"
    default = convert(default, kind, where)
    descriptor = msgs.ParameterDescriptor(dynamic_typing=True, read_only=read_only)
    value = node.declare_parameter(name, default, descriptor).value
    return convert(value, kind, where)


def field_types(cls: type) -> dict[str, type]:
    """The type of each field of a parameter dataclass, from its default value."""
    defaults = cls()
    return {f.name: type(getattr(defaults, f.name)) for f in dataclasses.fields(cls)}


def declare_fields(node: Any, cls: type, defaults: Any | None = None) -> dict[str, Any]:
    """Declare every field of the dataclass `cls` (defaults from `defaults`, else cls())."""
    defaults = cls() if defaults is None else defaults
    return {name: declare(node, name, getattr(defaults, name), kind)
            for name, kind in field_types(cls).items()}


#: The scenario of a world-level node started without one (``ros2 run thymio_road thymio_world``).
DEFAULT_SCENARIO = 'oval'


def scenario_of_node(node: Any) -> Any:
    """The scenario a world-level node is started with: its `scenario_file`, `robot_count` and
    `seed` parameters (as node_specs passes them; 0 robots / seed -1 mean the file's).
    """
    from thymio_road.scenario import load_scenario  # not for the driver, which runs without one
    scenario_file = declare(node, 'scenario_file', DEFAULT_SCENARIO)
    count = declare(node, 'robot_count', 0)
    seed = declare(node, 'seed', -1)
    where = f"{node.get_namespace().rstrip('/')}/{node.get_name()}: parameter"
    if not scenario_file.strip():
        # load_scenario('') reads the current folder: '.: cannot read: Is a directory'.
        raise ValueError(f"{where} scenario_file: empty: give a shipped scenario's name "
                         f'(default {DEFAULT_SCENARIO}) or the path of a scenario file')
    if count < 0:
        raise ValueError(f"{where} robot_count: must be 0 (the scenario's) or more, got {count}")
    return load_scenario(scenario_file, robots=count or None, seed=None if seed < 0 else seed)
