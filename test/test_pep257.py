# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd
"""ament_pep257 on the package, as the ament_python template's test runs it.

ament_pep257's own convention ('ament': pydocstyle's checks less D100-D107, D203, D212, D404), with
these codes ignored besides, for these reasons:

- D213 (a multi-line docstring's summary on the second line), and D212 checked instead (on the
  first line): the two are a mutually exclusive pair of layouts that PEP 257 both allows (its own
  examples put the summary on the opening line); every docstring of the project is written that
  way, and flake8-docstrings (ament_flake8) takes no side.
- D205, D400, D415 (the summary is one line ending in a period, followed by a blank line): the
  project's docstrings open with a sentence that often runs over two or three lines, written to
  be read whole; cutting 400 of them to one line is rewording, not a style fix.
- D401 (the summary in the imperative mood): the project describes what a function returns or is
  ('The number of ...', 'Distance along ...'), the numpy/scientific habit, in 350 docstrings.

The rest of ament's convention holds, D209 (closing quotes on their own line) among it.
"""
from lint_paths import missing, PATHS, ROOT
import pytest

IGNORES = ['D100', 'D101', 'D102', 'D103', 'D104', 'D105', 'D106', 'D107', 'D203', 'D404',  # ament's ignores less D212
           'D213', 'D205', 'D400', 'D415', 'D401']


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257(monkeypatch):
    for module in ('ament_pep257', 'pydocstyle'):
        if missing(module):
            pytest.skip(missing(module))
    from ament_pep257.main import main
    monkeypatch.chdir(ROOT)
    rc = main(argv=['--ignore', *IGNORES, '--', *PATHS])
    assert rc == 0, 'Found code style errors / warnings'
