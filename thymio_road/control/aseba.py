# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Aseba's integer arithmetic, so that the thresholds behave as on the robot."""
from __future__ import annotations


def adiv(a: int, b: int) -> int:
    """Aseba's integer division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def clip(u: int) -> int:
    """A motor target in -500..500."""
    return -500 if u < -500 else 500 if u > 500 else u
