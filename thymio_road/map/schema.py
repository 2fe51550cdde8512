# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""One schema for every parameter: type, range, finiteness and unit declared once, beside the
dataclass field (``param``), and checked before anything runs.

A parameter's type is its default's (rclpy types a parameter so too). Its range, unit and the
words it may take live in the field's metadata, so that the scenario reader, the dataclass's own
``__post_init__`` and a ROS parameter descriptor all read the same declaration. A scenario's
values are checked as the user wrote them, before any conversion, and the error reads
``file: section.field: value: why``.
"""
from __future__ import annotations

from dataclasses import Field, field, fields, MISSING
import math
import numbers
from typing import Any

from thymio_road.map.validation import ConfigError, show


def param(default: Any, low: float = -math.inf, high: float = math.inf, unit: str = '', *,
          choices: tuple[str, ...] = (), low_open: bool = False, high_open: bool = False, why: str = '',
          **extra: Any) -> Any:
    """A dataclass field with its schema: a number in [low, high] (an end left out when
    `low_open` or `high_open`), finite whatever its range; a word among `choices`; `why` says what the range
    protects against, in the error. `extra` goes into the metadata as it is.
    """
    return field(default=default, metadata={'range': (low, high), 'unit': unit, 'choices': tuple(choices),
                                            'low_open': low_open, 'high_open': high_open, 'why': why,
                                            **extra})


def kind_of(f: Field) -> type:
    """The parameter's type: its default's."""
    return type(f.default) if f.default is not MISSING else object


def describe(f: Field) -> str:
    """What the field takes, as an error states it: 'an integer in 1..1000', 'a number in [0, 0.05] s'."""
    kind, meta = kind_of(f), f.metadata
    if kind is bool:
        return 'true or false'
    choices = meta.get('choices', ())
    if kind is str:
        return _either(choices) if choices else 'a string'
    low, high = meta.get('range', (-math.inf, math.inf))
    unit = f" {meta['unit']}" if meta.get('unit') else ''
    if kind is int:
        if math.isinf(low) and math.isinf(high):
            return f'an integer{unit}'
        if math.isinf(high):
            return f'an integer >= {int(low)}{unit}'
        return f'an integer in {int(low)}..{int(high)}{unit}'
    if math.isinf(low) and math.isinf(high):
        return f'a finite number{unit}'
    if math.isinf(high):
        return f"a number {'>' if meta.get('low_open') else '>='} {low:g}{unit}"
    return (f"a number in {'(' if meta.get('low_open') else '['}{low:g}, {high:g}"
            f"{')' if meta.get('high_open') else ']'}{unit}")


def problem(f: Field, value: Any) -> str | None:
    """Why `value` cannot be the parameter `f`, or None when it can."""
    kind, meta = kind_of(f), f.metadata
    wanted = f'must be {describe(f)}'
    why = f" ({meta['why']})" if meta.get('why') else ''
    if kind is bool:
        return None if isinstance(value, bool) else wanted
    if kind is str:
        if not isinstance(value, str):
            return wanted
        choices = meta.get('choices', ())
        return wanted if choices and value not in choices else None
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral if kind is int else numbers.Real):
            return wanted
        if not math.isfinite(value):
            return f'{wanted}: it is not finite'
        low, high = meta.get('range', (-math.inf, math.inf))
        if not ((low < value if meta.get('low_open') else low <= value)
                and (value < high if meta.get('high_open') else value <= high)):
            return wanted + why
    return None


class ParameterError(ValueError):
    """A parameter value outside its schema; `name`, `value` and `why` kept for the reader's message."""

    def __init__(self, name: str, value: Any, why: str) -> None:
        super().__init__(f'{name} {why}, got {show(value)}')
        self.name, self.value, self.why = name, value, why


def check(obj: Any) -> None:
    """Every field of the dataclass instance `obj` within its schema (for ``__post_init__``)."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        why = problem(f, value)
        if why is not None:
            raise ParameterError(f.name, value, why)


def check_values(cls: type, values: Any, where: str, error: type[ConfigError] = ConfigError) -> None:
    """`values` (a mapping from a file: `where` is 'file: section') as parameters of `cls`:
    unknown names, types, finiteness and ranges, each refused as 'where.field: value: why'.
    """
    if not isinstance(values, dict):
        raise error(f'{where}: must be a mapping of parameters, got {show(values)}')
    known = {f.name: f for f in fields(cls)}
    for key, value in values.items():
        if key not in known:
            raise error(f"{where}: unknown parameter {show(key)} (known: {', '.join(known)})")
        why = problem(known[key], value)
        if why is not None:
            raise error(f'{where}.{key}: {show(value)}: {why}')


def ranges(cls: type) -> dict[str, tuple[float, float]]:
    """Each numeric field's declared (low, high), for a ROS parameter descriptor's range."""
    return {f.name: f.metadata['range'] for f in fields(cls)
            if kind_of(f) in (int, float) and 'range' in f.metadata}


def _either(words: tuple[str, ...]) -> str:
    quoted = [repr(w) for w in words]
    return quoted[0] if len(quoted) == 1 else ', '.join(quoted[:-1]) + f' or {quoted[-1]}'
