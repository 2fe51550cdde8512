# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Output paths checked before a command computes anything, so that a bad `--out` costs nothing.

A command that ran for minutes and then failed to write its result would lose the work; these
checks try the path itself (a probe file in the folder that will hold it) because permission
bits say nothing for root or on a read-only mount.
"""
from __future__ import annotations

import os
from pathlib import Path
import tempfile

from thymio_road.map.validation import ConfigError

#: Longest file name most file systems accept (ext4, APFS, NTFS).
NAME_MAX = 255


class OutputError(ConfigError):
    """An output path that cannot be written; the message names the flag and the path."""


def check_out_dir(path: Path, flag: str = '--out') -> None:
    """`path` is, or can become, a writable folder (nothing is created)."""
    _check_names(path, flag)
    if path.exists() and not path.is_dir():
        raise OutputError(f'{flag} {path}: is a file, not a folder')
    _check_writable(path if path.is_dir() else _existing_ancestor(path, flag), path, flag)


def check_out_file(path: Path, flag: str = '--out') -> None:
    """`path` can be written as a file: not a folder, its folder writable (nothing is created)."""
    _check_names(path, flag)
    if path.is_dir():
        raise OutputError(f'{flag} {path}: is a folder, not a file')
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f'{flag} {path}: the file is read-only')
    _check_writable(_existing_ancestor(path.parent, flag), path, flag)


def _check_names(path: Path, flag: str) -> None:
    for part in path.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise OutputError(f'{flag} {str(path)[:60]}...: a name in the path has {len(os.fsencode(part))} '
                              f'bytes, more than the {NAME_MAX} a file system allows')


def _existing_ancestor(path: Path, flag: str) -> Path:
    """The nearest folder of `path` (itself included) that exists; a file there is an error."""
    here = path.absolute()
    while not here.exists():
        here = here.parent
    if not here.is_dir():
        raise OutputError(f'{flag} {path}: {here} is a file, so no folder can be made under it')
    return here


def _check_writable(folder: Path, path: Path, flag: str) -> None:
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise OutputError(f'{flag} {path}: cannot write in {folder}: {exc.strerror or exc}') from None
