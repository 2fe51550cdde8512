# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""CDR serialisers generated per message type: the bytes of rosbags' ``serialize_cdr``, faster.

A recorded run serialises every message it writes; rosbags' serialiser walks the type's
definition for each one (its size first, then its fields). Here each type's definition is
turned once into a Python function: runs of fixed-size fields become one ``struct.pack`` with
the CDR padding written in, and the padding after a string (whose length varies) is computed
where it is needed. Little-endian CDR, as rosbags writes on this platform's byte order.

Types with a field kind the generator does not handle (wide strings, sequences of 8-byte
numbers, arrays of messages or strings) get no serialiser (:func:`serializer` returns None) and
stay with rosbags. test/test_cdr.py compares the bytes with rosbags' for every type the
embedded runtime records, both distros, and varied string and array lengths.
"""
from __future__ import annotations

import struct
import sys
from typing import Any, Callable

import numpy as np

#: The encapsulation header of little-endian CDR (as rosbags writes it).
HEADER = b'\x00\x01\x00\x00'
_FORMATS = {'bool': '?', 'byte': 'B', 'char': 'B', 'int8': 'b', 'uint8': 'B', 'int16': 'h',
            'uint16': 'H', 'int32': 'i', 'uint32': 'I', 'int64': 'q', 'uint64': 'Q',
            'float32': 'f', 'float64': 'd'}
_DTYPES = {'bool': '?', 'byte': 'u1', 'char': 'u1', 'int8': 'i1', 'uint8': 'u1', 'int16': '<i2',
           'uint16': '<u2', 'int32': '<i4', 'uint32': '<u4', 'int64': '<i8', 'uint64': '<u8',
           'float32': '<f4', 'float64': '<f8'}
_ZEROS = tuple(bytes(k) for k in range(8))


class Unsupported(Exception):
    """A field kind the generator leaves to rosbags."""


class _Code:
    """The generated function's body: fixed-size fields gathered into one pack until something of
    variable length (or an alignment the position does not guarantee) makes the position dynamic.

    `pos` (a variable of the generated code) is the payload position where the pending pack
    starts; `off` the pack's size so far; `align` an alignment that `pos` is known to have.
    """

    def __init__(self, scope: dict[str, Any]) -> None:
        self.lines: list[str] = []
        self.scope = scope
        self.fmt, self.values, self.off, self.align = '', [], 0, 8
        self.indent = 1
        self.names = 0

    def name(self, prefix: str) -> str:
        self.names += 1
        return f'{prefix}{self.names}'

    def emit(self, line: str) -> None:
        self.lines.append('    ' * self.indent + line)

    def flush(self) -> None:
        """Write the pending pack and move `pos` past it."""
        if self.fmt:
            packer = self.name('pack')
            self.scope[packer] = struct.Struct('<' + self.fmt).pack
            self.emit(f'parts.append({packer}({", ".join(self.values)}))')
        if self.off:
            self.emit(f'pos += {self.off}')
        self.fmt, self.values, self.off = '', [], 0

    def pad(self, size: int) -> None:
        """Align to `size`: statically when `pos`'s alignment allows, else at run time."""
        if size <= self.align:
            self.fmt += 'x' * (-self.off % size)
            self.off += -self.off % size
            return
        self.flush()
        self.emit(f'gap = -pos % {size}')
        self.emit('parts.append(ZEROS[gap])')
        self.emit('pos += gap')
        self.align = size

    def primitive(self, base: str, expr: str) -> None:
        size = struct.calcsize(_FORMATS[base])
        self.pad(size)
        self.fmt += _FORMATS[base]
        self.values.append(expr)
        self.off += size

    def raw(self, expr: str, length: str | int) -> None:
        """Bytes of run-time value `expr` and length `length` (an int: a static size)."""
        self.flush()
        self.emit(f'parts.append({expr})')
        if isinstance(length, int):
            self.off = length
        else:
            self.emit(f'pos += {length}')
            self.align = 1


def _field(code: _Code, store: Any, kind: int, detail: Any, expr: str) -> None:
    if kind == 1:  # base type
        base = detail[0]
        if base == 'string':
            text = code.name('text')
            code.emit(f'{text} = {expr}.encode()')
            code.primitive('uint32', f'len({text}) + 1')
            code.raw(f'{text} + NUL', f'len({text}) + 1')
        elif base in _FORMATS:
            code.primitive(base, expr)
        else:
            raise Unsupported(base)
    elif kind == 2:  # nested message, inlined
        _message(code, store, detail, expr)
    elif kind in (3, 4):  # fixed array, sequence
        (sub_kind, sub), size = detail
        if sub_kind.value == 1 and sub[0] in _DTYPES:
            item = struct.calcsize(_FORMATS[sub[0]])
            values = code.name('values')
            code.emit(f'{values} = asarray({expr}, dtype={_DTYPES[sub[0]]!r})')
            if kind == 3:
                code.pad(item)
                code.raw(f'{values}.tobytes()', size * item)
            else:
                if item > 4:
                    raise Unsupported(f'sequence of {sub[0]}')  # its padding depends on the count
                code.primitive('uint32', f'len({values})')
                code.raw(f'{values}.tobytes()', f'{values}.size * {item}')
        elif sub_kind.value == 2 and kind == 4:
            items = code.name('items')
            element = code.name('element')
            code.emit(f'{items} = {expr}')
            code.primitive('uint32', f'len({items})')
            code.flush()
            code.emit(f'for {element} in {items}:')
            code.indent += 1
            code.align = 1
            _message(code, store, sub, element)
            code.flush()
            code.indent -= 1
            code.align = 1
        else:
            raise Unsupported(f'array of {sub}')
    else:
        raise Unsupported(f'field kind {kind}')


def _message(code: _Code, store: Any, typename: str, expr: str) -> None:
    _, fields = store.fielddefs[typename]
    if not fields:  # an empty message is one byte in CDR
        code.primitive('uint8', '0')
        return
    for name, (kind, detail) in fields:
        _field(code, store, kind.value, detail, f'{expr}.{name}')


def serializer(store: Any, typename: str) -> Callable[[Any], bytes] | None:
    """The serialiser of `typename` in rosbags typestore `store`, or None when unsupported."""
    if sys.byteorder != 'little':
        return None
    scope: dict[str, Any] = {'ZEROS': _ZEROS, 'NUL': b'\x00', 'HEADER': HEADER, 'asarray': np.asarray}
    code = _Code(scope)
    code.emit('parts = [HEADER]')
    code.emit('pos = 0')
    try:
        _message(code, store, typename, 'msg')
    except Unsupported:
        return None
    code.flush()
    code.emit("return b''.join(parts)")
    source = 'def serialize(msg):\n' + '\n'.join(code.lines) + '\n'
    exec(compile(source, f'<cdr {typename}>', 'exec'), scope)  # noqa: S102 - from the type's field names
    function = scope['serialize']
    function.source = source
    return function
