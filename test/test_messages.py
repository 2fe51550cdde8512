# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The robots' IR message kinds (control/messages.py): one table, one encode, one decode."""
import pytest

from thymio_road.control import messages
from thymio_road.map.lights import CODE_MAX, CODE_MIN


def test_every_value_of_every_kind_decodes_to_what_was_encoded():
    for kind in messages.KINDS:
        for value in range(kind.span):
            assert messages.decode(messages.encode(kind, value)) == (kind, value)


def test_kinds_neither_overlap_nor_reach_the_lights_codes_and_fit_the_payload():
    taken = [code for kind in messages.KINDS for code in range(kind.base, kind.base + kind.span)]
    assert len(taken) == len(set(taken))
    assert not any(CODE_MIN <= code <= CODE_MAX for code in taken)
    assert max(taken) <= 1023  # ten bits (docs/design.md: Thymio facts)


@pytest.mark.parametrize('code', [-1, 0, CODE_MIN, CODE_MAX, 127, 704, 1023, 5000])
def test_values_that_are_no_robots_message_decode_to_none(code):
    assert messages.decode(code) is None


def test_a_value_outside_its_kind_is_refused_with_the_kind_named():
    with pytest.raises(ValueError, match='waiting carries 0..63, got 64'):
        messages.encode(messages.WAITING, 64)
