# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Strict reading of YAML configuration: every error names the file, the element and the value.

Configuration files come from users, so reading one is bounded: its size in bytes, the number of
YAML nodes once aliases are expanded (a "billion laughs" file is a few hundred bytes and expands
to 10^9 nodes), and the length of any value quoted back in an error message.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
import re
import reprlib
import stat
from typing import Any, NoReturn, TypeVar

import yaml

T = TypeVar('T')

#: Largest configuration file read (the shipped maps and scenarios are under 5 kB).
MAX_YAML_BYTES = 1_000_000
#: Most YAML nodes a file may hold once its aliases are expanded (the final map has about 1500).
MAX_YAML_NODES = 100_000


#: Limits of a scenario, and of the CLI options that override it (here, at the bottom, so that
#: the command line can check its flags without importing the simulation).
MAX_ROBOTS = 1000
MAX_DURATION = 7 * 24 * 3600.0
#: Seeds are non-negative: numpy refuses negative ones, and a node's seed parameter -1 means
#: "the scenario's" (scenario_of_node).
MAX_SEED = 2 ** 31 - 1


class ConfigError(ValueError):
    """A configuration file (map, scenario, parameters) that cannot be used."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, plus YAML 1.2 floats without a dot (`1e9`, `2.5e-3`): YAML 1.1
    reads those as strings, so `duration: 1e9` would be refused as "not a number".
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        """A mapping whose keys are all different: YAML forbids a key twice, and PyYAML would
        silently keep the last value (`map: oval` then `map: final` runs on the final map).
        """
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == 'tag:yaml.org,2002:merge':
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: the constructor refuses it below
                continue
            if first is not key_node:
                raise yaml.constructor.ConstructorError(
                    None, None, f'duplicate key {show(key, 30)} (first at line {first.start_mark.line + 1})',
                    key_node.start_mark)
        return super().construct_mapping(node, deep)


_Loader.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(r'^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$'),
    list('-+.0123456789'))


def load_yaml(path: Path, error: type[ConfigError] = ConfigError) -> Any:
    """Parse a YAML file, turning I/O, encoding, syntax and size problems into `error` with the
    file's name. Only a regular file is read (a FIFO would block for ever, a device such as
    /dev/zero has no end), and the size limit holds for the bytes actually read.
    """
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise error(f'{path}: is {_file_kind(info.st_mode)}, not a regular file: give a YAML file')
        if info.st_size > MAX_YAML_BYTES:
            raise error(f'{path}: the file has {info.st_size} bytes, more than the {MAX_YAML_BYTES} a '
                        'configuration file may have')
        with path.open('rb') as f:
            raw = f.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise error(f'{path}: cannot read: {exc.strerror or exc}') from None
    if len(raw) > MAX_YAML_BYTES:
        raise error(f'{path}: the file grew past the {MAX_YAML_BYTES} bytes a configuration file may have '
                    'while it was read')
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        raise error(f'{path}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start}') from None
    return parse_yaml(text, str(path), error)


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return 'a folder'
    if stat.S_ISFIFO(mode):
        return 'a FIFO (named pipe)'
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return 'a device'
    return 'a socket' if stat.S_ISSOCK(mode) else 'not a file'


def parse_yaml(text: str, source: str, error: type[ConfigError] = ConfigError) -> Any:
    """Parse YAML text from `source`; the expanded node count is checked before any object is
    built, so an alias bomb is refused in milliseconds.
    """
    if len(text) > MAX_YAML_BYTES:
        raise error(f'{source}: {len(text)} characters, more than the {MAX_YAML_BYTES} a '
                    'configuration may have')
    loader = None
    try:
        loader = _Loader(text)  # its reader refuses characters YAML does not allow, at once
        node = loader.get_single_node()
        if node is None:
            return None
        count = _expanded_nodes(node, {}, set())
        if count > MAX_YAML_NODES:
            raise error(f'{source}: its aliases expand to more than {MAX_YAML_NODES} YAML nodes '
                        '(each alias counts as a copy); write the values out or use fewer aliases')
        return loader.construct_document(node)
    except yaml.reader.ReaderError as exc:  # a NUL, an ANSI escape from pasted coloured text, ...
        line = text.count('\n', 0, exc.position) + 1
        column = exc.position - (text.rfind('\n', 0, exc.position) + 1) + 1
        hint = ' (pasted coloured terminal text?)' if exc.character == 0x1b else ''
        raise error(f'{source}: not valid YAML at line {line}, column {column}: the control character '
                    f'0x{exc.character:02x} cannot be in a YAML file{hint}') from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        where = f' at line {mark.line + 1}, column {mark.column + 1}' if mark else ''
        problem = getattr(exc, 'problem', None) or str(exc)
        raise error(f'{source}: not valid YAML{where}: {_cut(problem)}') from None
    except RecursionError:
        raise error(f'{source}: nested too deeply to read') from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise error(f'{source}: a value cannot be read: {_cut(str(exc))}') from None
    finally:
        if loader is not None:
            loader.dispose()


def _expanded_nodes(node: yaml.Node, counts: dict[int, int], open_: set[int]) -> int:
    """Nodes under `node` with every alias expanded, counted on the shared node graph (each node
    once), stopping as soon as the count passes the limit.
    """
    key = id(node)
    if key in counts:
        return counts[key]
    if key in open_:
        raise yaml.YAMLError('an alias refers to its own anchor (a recursive structure)')
    open_.add(key)
    total = 1
    if isinstance(node, yaml.SequenceNode):
        children = node.value
    elif isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    else:
        children = []
    for child in children:
        total += _expanded_nodes(child, counts, open_)
        if total > MAX_YAML_NODES:
            break
    open_.discard(key)
    counts[key] = total
    return total


_TYPE_NAMES = {str: 'a string', float: 'a number', int: 'an integer', bool: 'true or false',
               list: 'a list', dict: 'a mapping', object: 'a value'}


class Fields:
    """Typed access to one mapping of a config file; unknown keys are rejected by :meth:`done`."""

    def __init__(self, data: Any, source: str, context: str,
                 error: type[ConfigError] = ConfigError) -> None:
        self.source, self.context, self.error = source, context, error
        if not isinstance(data, dict):
            self.fail(None, f'must be a mapping, got {_show(data)}')
        self.data: dict = data
        self.seen: set[str] = set()

    def fail(self, key: str | None, problem: str) -> NoReturn:
        where = f'{self.context}.{key}' if key else self.context
        raise self.error(f'{self.source}: {where}: {problem}')

    def require(self, key: str, kind: type[T]) -> T:
        if key not in self.data:
            self.fail(None, f"missing required field '{key}'")
        return self._get(key, kind)

    def optional(self, key: str, kind: type[T], default: T) -> T:
        if key not in self.data or self.data[key] is None:
            self.seen.add(key)
            return default
        return self._get(key, kind)

    def _get(self, key: str, kind: type) -> Any:
        self.seen.add(key)
        value = self.data[key]
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                self.fail(key, f'must be {_TYPE_NAMES[kind]}, got {_show(value)}')
            return float(value)
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                self.fail(key, f'must be {_TYPE_NAMES[kind]}, got {_show(value)}')
            return value
        if kind is not object and not isinstance(value, kind):
            self.fail(key, f'must be {_TYPE_NAMES.get(kind, kind.__name__)}, got {_show(value)}')
        return value

    def done(self) -> None:
        unknown = sorted(set(map(str, self.data)) - self.seen)
        if unknown:
            self.fail(None, f"unknown field {show(unknown[0])} (known: {', '.join(sorted(self.seen))})")


class _Repr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        # repr() of an int of more than 4300 digits raises ValueError.
        return super().repr_int(x, level) if x.bit_length() <= 128 else f'<integer of {x.bit_length()} bits>'


_REPR = _Repr()
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple = 3, 4, 6, 6
_REPR.maxstring, _REPR.maxother = 50, 50


def show(value: Any, limit: int = 60) -> str:
    """A value for an error message, cut before it is rendered: a huge structure is never
    rendered whole (reprlib stops at a few items and levels).
    """
    return _cut(_REPR.repr(value), limit)


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + '...'


_show = show


def arg_int(low: int, high: int) -> Any:
    """An argparse type for an integer in [low, high]. argparse names the flag; the message never
    names this function (a ValueError would print "invalid <function name> value").
    """
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'must be an integer in {low}..{high}, got {show(text)}') from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f'must be an integer in {low}..{high}, got {show(text)}')
        return value
    parse.__name__ = 'integer'
    return parse


def arg_float(low: float, high: float, low_open: bool = False) -> Any:
    """An argparse type for a finite number in [low, high] (or (low, high] when `low_open`)."""
    span = f"{'(' if low_open else '['}{low:g}, {high:g}]"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (low < value if low_open else low <= value) and value <= high):
            raise argparse.ArgumentTypeError(f'must be a number in {span}, got {show(text)}')
        return value
    parse.__name__ = 'number'
    return parse


#: Most seeds a list of seeds may give (`--seeds 0-2147483647` would build two billion runs).
MAX_SEEDS = 10_000


def parse_seeds(text: str, example: str = '1-5') -> list[int]:
    """'1-5' or '1,3,7' (or both: '1-3,9') → the seeds, each in 0..MAX_SEED, at most MAX_SEEDS of
    them, counted before the list is built. ValueError says what is wrong, quoting `text`.
    """
    parts = []
    for part in text.split(','):
        a, dash, b = part.strip().partition('-')
        try:
            low, high = int(a), int(b) if dash else int(a)
        except ValueError:
            raise ValueError(f"seeds must look like '{example}' or '1,3,7', got {show(text)}") from None
        if not (0 <= low <= MAX_SEED and 0 <= high <= MAX_SEED):
            raise ValueError(f'seeds must be in 0..{MAX_SEED}, got {show(text)}')
        if high < low:
            raise ValueError(f'the range {show(part.strip())} ends before it starts: write it low-high')
        parts.append((low, high))
    count = sum(high - low + 1 for low, high in parts)
    if count > MAX_SEEDS:
        raise ValueError(f'{show(text)} gives {count} seeds, more than the {MAX_SEEDS} one command runs')
    return [s for low, high in parts for s in range(low, high + 1)]
