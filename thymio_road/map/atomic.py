# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Atomic outputs: every file the project writes goes to a temporary name beside it and is renamed
into place once whole, so that an earlier file survives a full disk, a file-size limit, a crash or
a signal, and no reader ever sees half a file.

A write that fails removes its temporary file and raises an OSError that names the file the user
asked for (not the temporary one) and says what is left of it.
"""
from __future__ import annotations

from contextlib import contextmanager
import os
from pathlib import Path
import shutil
from typing import Iterator


def temporary_name(path: Path) -> Path:
    """A hidden name beside `path` with the same suffix (writers such as matplotlib and PIL choose
    the format from it), unique to this process.
    """
    return path.with_name(f'.{path.stem}.tmp{os.getpid()}{path.suffix}')


def failed(path: Path, exc: OSError) -> OSError:
    """`exc` as the failure to write `path`, saying what is left of it."""
    left = 'the earlier file is kept' if path.exists() else 'nothing was written there'
    return OSError(exc.errno, f'{exc.strerror or exc}; {left}', str(path))


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary name to write `path` under; rename it onto `path` when the block ends,
    remove it when the block raises (an OSError then names `path`).
    """
    path = Path(path)
    tmp = temporary_name(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise failed(path, exc) from None
        raise


def write_text(path: str | os.PathLike, text: str, encoding: str = 'utf-8') -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding=encoding)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


@contextmanager
def staged_folder(folder: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary folder beside `folder` to write a set of files in (a report); when the
    block ends, each is renamed into `folder` (files of the same names replaced, others left as
    they are). When it raises, the temporary folder goes and `folder` is as it was; an OSError
    names `folder`.
    """
    folder = Path(folder)
    tmp = folder.with_name(f'.{folder.name}.tmp{os.getpid()}')
    try:
        tmp.mkdir(parents=True)
        yield tmp
        folder.mkdir(parents=True, exist_ok=True)
        for item in sorted(tmp.iterdir()):
            target = folder / item.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(item, target)
        tmp.rmdir()
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            where = Path(exc.filename.replace(str(tmp), str(folder))) if isinstance(exc.filename, str) else folder
            left = 'its earlier files are kept' if folder.exists() else 'nothing was written'
            raise OSError(exc.errno, f'{exc.strerror or exc}; {left} in {folder}', str(where)) from None
        raise


def save_figure(fig: object, path: str | os.PathLike, **options: object) -> None:
    """A matplotlib figure saved whole or not at all (the format from `path`'s suffix)."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, **options)  # type: ignore[attr-defined]
