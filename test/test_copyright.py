# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""ament_copyright on the package, as the ament_python template's test runs it.

ament_copyright has no wheel. Where it is installed (a ROS machine, colcon test) the test runs it;
elsewhere it runs the same check here: every non-empty Python file opens (after a shebang or
coding line) with a comment block that holds a copyright notice with a year and the 3-Clause BSD
License, as ament_copyright's bsd_3clause templates word it (the short form that points to the
LICENSE file, or the whole text). The package-level setup.py is left out, as ament_copyright
does.
"""
import importlib.util
import os
import re

from lint_paths import PATHS, ROOT
import pytest

# ament_copyright's templates/bsd_3clause_header_0.txt and bsd_3clause_header.txt (Jazzy), less the
# {copyright} line, whitespace-normalised as ament_copyright compares them.
BSD_3CLAUSE_HEADERS = [
    'Use of this source code is governed by a BSD-style license that can be found in the LICENSE file or at '
    'https://developers.google.com/open-source/licenses/bsd',
    'Redistribution and use in source and binary forms, with or without modification, are permitted provided that '
    'the following conditions are met:',
]
YEARS = r'\d{4}(?:-\d{4})?(?:,\s*\d{4}(?:-\d{4})?)*'
COPYRIGHT = re.compile(r'^[^\n\r]?\s*copyright(?:\s+\(c\))?\s+' + YEARS + r',?\s+[^\n\r]+$',
                       re.MULTILINE | re.IGNORECASE)


def python_files():
    """Yield the files ament_copyright checks under PATHS (skipping '.' and '_' folders, and setup.py)."""
    for path in PATHS:
        full = os.path.join(ROOT, path)
        if os.path.isfile(full):
            if path != 'setup.py':
                yield path
            continue
        for dirpath, dirnames, filenames in os.walk(full):
            dirnames[:] = sorted(d for d in dirnames if d[0] not in '._')
            for name in sorted(filenames):
                if name.endswith('.py'):
                    yield os.path.relpath(os.path.join(dirpath, name), ROOT)


def notice_problem(text):
    """Return what is wrong with the file's opening comment block, or None if it has the notice."""
    lines = text.splitlines()
    while lines and lines[0].startswith('#') and (lines[0].startswith('#!') or 'coding' in lines[0]):
        lines.pop(0)
    while lines and not lines[0].strip():
        lines.pop(0)
    block = []
    for line in lines:
        if not line.startswith('#'):
            break
        block.append(line[2:])
    block = '\n'.join(block)
    match = COPYRIGHT.search(block)
    if not match:
        return 'could not find copyright notice'
    remaining = ' '.join(block[match.end():].split())
    if not any(header in remaining for header in BSD_3CLAUSE_HEADERS):
        return 'copyright notice without the 3-Clause BSD License'
    return None


@pytest.mark.copyright
@pytest.mark.linter
def test_copyright(monkeypatch):
    monkeypatch.chdir(ROOT)
    if importlib.util.find_spec('ament_copyright') is not None:
        from ament_copyright.main import main
        rc = main(argv=[path for path in PATHS if path != 'setup.py'])
        assert rc == 0, 'Found errors'
        return
    problems = []
    for path in python_files():
        with open(path, encoding='utf-8') as f:
            text = f.read()
        if text.strip() and notice_problem(text):
            problems.append(f'{path}: {notice_problem(text)}')
    assert not problems, f'{len(problems)} files without the notice:\n' + '\n'.join(problems)


def test_the_check_tells_a_notice_from_none():
    short = ('# Copyright 2026 thymio_road developers\n#\n# Use of this source code is governed by a BSD-style\n'
             '# license that can be found in the LICENSE file or at\n'
             '# https://developers.google.com/open-source/licenses/bsd\n"""Doc."""\n')
    assert notice_problem(short) is None
    assert notice_problem('#!/usr/bin/env python3\n' + short) is None
    assert notice_problem('"""Doc."""\n') == 'could not find copyright notice'
    assert notice_problem('# Copyright 2026 someone\n# Licensed under the MIT License\n') == \
        'copyright notice without the 3-Clause BSD License'
    assert notice_problem('# Copyright someone\n' + short[short.index('#\n'):]) == 'could not find copyright notice'
