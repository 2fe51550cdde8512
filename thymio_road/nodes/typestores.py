# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""rosbags typestores holding only the interface's message types, their definitions kept on disk.

rosbags' store of a distro is a module of every message type it knows, built on the store of the
distro before (Jazzy's on Iron's, ..., on Dashing's): importing it took 0.2 s of CPU at every
run (issue #28), for the 32 types the nodes use. Their field definitions (the types of
msgs.TYPES and the types in them) are taken from rosbags' full store once per rosbags version,
distro and type list, kept as JSON in the project's cache folder, and registered into an empty
store: the same message definitions, hashes, classes and CDR bytes (test_typestores.py).
"""
from __future__ import annotations

import hashlib
from importlib.metadata import version
import json
from pathlib import Path
from typing import Any, Iterable

from thymio_road.map.atomic import atomic_path
from thymio_road.map.raster_cache import cache_bases

#: rosbags' store of each distro the embedded runtime records for.
STORES = {'humble': 'ROS2_HUMBLE', 'jazzy': 'ROS2_JAZZY'}


def interface_typestore(distro: str, typenames: Iterable[str]) -> Any:
    """An empty rosbags typestore with `typenames` of `distro` (and the types in them) registered."""
    from rosbags.typesys.store import Typestore
    typenames = sorted(typenames)
    key = hashlib.sha256(json.dumps([version('rosbags'), distro, typenames]).encode()).hexdigest()[:24]
    fielddefs = _read(key)
    if fielddefs is None:
        fielddefs = _from_full_store(distro, typenames)
        _write(key, fielddefs)
    store = Typestore()
    store.register({name: _tuples(definition) for name, definition in fielddefs.items()})
    return store


def _from_full_store(distro: str, typenames: list[str]) -> dict[str, Any]:
    """The field definitions of `typenames` and of every type they contain, from rosbags' store."""
    from rosbags.typesys import get_typestore, Stores
    full = get_typestore(Stores[STORES[distro]]).fielddefs
    found: dict[str, Any] = {}

    def add(typename: str) -> None:
        if typename in found:
            return
        consts, fields = full[typename]
        found[typename] = [[list(c) for c in consts], [[name, _plain(desc)] for name, desc in fields]]
        for _, desc in fields:
            for nested in _names(desc):
                add(nested)

    for typename in typenames:
        add(typename)
    return found


def _names(desc: tuple) -> list[str]:
    """The message types a field's type names (Nodetype NAME 2; ARRAY 3 and SEQUENCE 4 hold one)."""
    kind, detail = desc
    if kind == 2:
        return [detail]
    if kind in (3, 4):
        return _names(detail[0])
    return []


def _plain(value: Any) -> Any:
    """The JSON form of a field definition: Nodetype members as their numbers, tuples as lists."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _tuples(value: Any) -> Any:
    """Lists back to the tuples rosbags' field definitions are made of."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _folder() -> Path | None:
    for base in cache_bases():
        path = base / 'typestores'
        try:
            path.mkdir(parents=True, exist_ok=True)
            return path
        except OSError:
            continue
    return None


def _read(key: str) -> dict[str, Any] | None:
    folder = _folder()
    try:
        data = json.loads((folder / f'{key}.json').read_text()) if folder else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(key: str, fielddefs: dict[str, Any]) -> None:
    folder = _folder()
    if folder is None:
        return
    try:
        with atomic_path(folder / f'{key}.json') as tmp:
            Path(tmp).write_text(json.dumps(fielddefs))
    except OSError:
        pass  # a read-only or full disk: the next run reads rosbags' store again
