# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""ament_flake8 on the package, as the ament_python template's test runs it.

The configuration is setup.cfg's [flake8] section: ament_flake8's own with a line length of 120
(the reasons are there). ament_flake8, flake8 and the plugins ament expects are in setup.py's test
extra; without them the test skips, saying so.
"""
import os

from lint_paths import missing, PATHS, ROOT
import pytest


@pytest.mark.flake8
@pytest.mark.linter
@pytest.mark.slow
def test_flake8(monkeypatch):
    for module in ('ament_flake8', 'flake8', 'flake8_builtins', 'flake8_comprehensions', 'flake8_docstrings',
                   'flake8_import_order', 'flake8_quotes'):
        if missing(module):
            pytest.skip(missing(module))
    from ament_flake8.main import main_with_errors
    monkeypatch.chdir(ROOT)
    rc, errors = main_with_errors(argv=['--config', os.path.join(ROOT, 'setup.cfg'), *PATHS])
    assert rc == 0, \
        'Found %d code style errors / warnings:\n' % len(errors) + \
        '\n'.join(errors)
