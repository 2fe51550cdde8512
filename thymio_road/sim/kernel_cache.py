# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""numba's cache of the simulator's kernels, kept in step with every file that they fold in.

numba stamps a cached kernel with its own file's time and size only, but a kernel here freezes
the layout's names and robot_model's numbers as constants, and compiles in the kernels that it
calls from the other modules (tick.py's call motion.py's, ...). An edit to one of those files
would leave the other modules' cached code as it was, silently. So each kernel module has a
kernel that returns :data:`DIGEST`, the digest of all those files, as it was when the module's
cache was compiled; :func:`refresh`, at the module's import, drops the module's cache when that
digest is not the current one (its kernels compile again at their first call, and cache that).
"""
from __future__ import annotations

from pathlib import Path
import zlib

from numba.core.dispatcher import Dispatcher

#: The files that the kernels' compiled code depends on.
SOURCES = ('layout.py', 'robot_model.py', 'motion.py', 'broad_phase.py', 'proximity.py', 'ground.py', 'tick.py',
           '../map/tiles.py')
_HERE = Path(__file__).resolve().parent


def _digest() -> int:
    try:
        return zlib.crc32(b''.join((_HERE / name).read_bytes() for name in SOURCES))
    except OSError:  # installed without its sources: nothing to compare
        return 0


DIGEST = _digest()


def refresh(namespace: dict) -> None:
    """Drop the cache of the module whose globals these are when its kernels were compiled from
    other sources; the module's ``compiled_digest`` kernel says from which.
    """
    probe = namespace['compiled_digest']
    if probe() == DIGEST:
        return
    for value in list(namespace.values()):
        if isinstance(value, Dispatcher) and value.py_func.__module__ == namespace['__name__']:
            value.recompile()  # flushes its cache; compiles again what it had compiled (the probe)
