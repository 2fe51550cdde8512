"""Strict reading of YAML configuration: every error names the file, the element and the value."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import yaml

T = TypeVar('T')


class ConfigError(ValueError):
    """A configuration file (map, scenario, parameters) that cannot be used."""


def load_yaml(path: Path, error: type[ConfigError] = ConfigError) -> Any:
    """Parse a YAML file, turning I/O and syntax problems into `error` with the file's name."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise error(f'{path}: cannot read: {exc.strerror or exc}') from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        where = f' at line {mark.line + 1}, column {mark.column + 1}' if mark else ''
        problem = getattr(exc, 'problem', None) or str(exc)
        raise error(f'{path}: not valid YAML{where}: {problem}') from None


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
            self.fail(None, f"unknown field '{unknown[0]}' (known: {', '.join(sorted(self.seen))})")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'
