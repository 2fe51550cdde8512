# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`generated:N` and `generated:N:SIZE`: generated maps and their scenarios by name, wherever a
shipped map or scenario is named (`find_config`).

A name needs no file beforehand: the map and its scenarios are generated on first use and kept in
a cache folder, keyed by a digest of the code and shipped settings they come from, so a worker
process that gets only the name finds or makes the very same files. Files are written whole and
then renamed into place, so processes that generate the same name at once never see half a file.

The folder is $THYMIO_ROAD_CACHE if set, else $XDG_CACHE_HOME/thymio_road (~/.cache/thymio_road),
else the system's temporary folder when that one is not writable.

The scenario layer, above this package, calls in (scenario.find_config) with what the scenarios
need from it: the shipped config folder and its rule for how many robots a road holds.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
import hashlib
import os
from pathlib import Path
import re
import tempfile

from thymio_road.generator.generate import check_request, generate_map, GeneratorError, map_name, SIZES
from thymio_road.generator.scenarios import Capacity, passages_text, traffic_text
from thymio_road.map.raster_cache import cache_bases as _bases
from thymio_road.map.validation import MAX_SEED

PREFIX = 'generated:'
_NAME = re.compile(r'generated:(\d{1,10})(?::([a-z]+))?')


@dataclass(frozen=True)
class Files:
    map: Path
    traffic: Path
    passages: Path


def is_generated(name: object) -> bool:
    return isinstance(name, str) and name.startswith(PREFIX)


def parse(name: str) -> tuple[int, str]:
    """(seed, size) of `generated:N[:SIZE]`; raises GeneratorError naming the problem."""
    m = _NAME.fullmatch(name)
    if m is None or int(m.group(1)) > MAX_SEED or (m.group(2) and m.group(2) not in SIZES):
        raise GeneratorError(f"'{name}': a generated map is named generated:N or generated:N:SIZE, N a seed in "
                             f"0..{MAX_SEED} and SIZE one of {', '.join(SIZES)} (e.g. generated:7, "
                             'generated:7:medium)')
    return check_request(int(m.group(1)), m.group(2) or 'small')


def resolve(kind: str, name: str, config: Path, capacity: Capacity) -> Path:
    """The file for `name` in `kind` ('maps' or 'scenarios': the traffic scenario)."""
    seed, size = parse(name)
    made = files(seed, size, config, capacity)
    return made.map if kind == 'maps' else made.traffic


def files(seed: int, size: str, config: Path, capacity: Capacity) -> Files:
    """The map, traffic and passage scenario files of generator seed `seed`, made if needed
    (`config`: the shipped config folder; `capacity`: scenario.road_capacity).
    """
    seed, size = check_request(seed, size)
    folder = cache_folder(config)
    stem = map_name(seed, size)
    out = Files(folder / f'{stem}.yaml', folder / f'{stem}_traffic.yaml', folder / f'{stem}_passages.yaml')
    if all(p.is_file() for p in (out.map, out.traffic, out.passages)):
        return out
    made = generate_map(seed, size)
    traffic, _ = traffic_text(made.road_map, stem, out.map.name, config, capacity)
    passages = passages_text(made.road_map, stem, out.map.name, config, capacity)
    for path, text in ((out.traffic, traffic), (out.passages, passages), (out.map, made.text)):
        _write(path, text)
    return out


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f'.{path.name}.', dir=path.parent)
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep the cache from other users of a shared one
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cache_folder(config: Path) -> Path:
    """The folder of this code version's generated files (created)."""
    for base in _bases():
        folder = base / 'generated' / version(config)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
            return folder
        except OSError:
            continue
    raise GeneratorError('no writable folder for generated maps: set THYMIO_ROAD_CACHE to one')


@lru_cache(maxsize=4)
def version(config: Path) -> str:
    """A digest of what generated files depend on: the generator, the map model and loader, and
    the shipped scenarios whose settings the generated ones copy.
    """
    here = Path(__file__).resolve().parent
    sources = sorted(here.glob('*.py')) + sorted((here.parent / 'map').glob('*.py')) + \
        [config / 'scenarios' / 'final_traffic.yaml', config / 'scenarios' / 'final.yaml']
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b'\0' + path.read_bytes())
    return digest.hexdigest()[:12]
