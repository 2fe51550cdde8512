# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The improved traffic rules (``traffic_rules: improved``), one module each.

Each rule owns its counters and says in its docstring what it prevents and which parameters it
reads; docs/controller.md lists them with their precedence and docs/traffic.md what they achieve.
A rule is a class registered with :func:`register`, built once per robot with the controller's
parameters and the :class:`~thymio_road.control.policies.ImprovedPolicy` that runs it.

Reasons to make way are :class:`Reason` rules (``fires(ctl, role, percept)``: the id of the robot
to make way for, 0 for one it cannot name, or None; a ``precedence``): the policy's selector asks
them in ascending precedence and the first that fires starts the making of way
(:mod:`.make_way`), the rule's ``name`` being the reason recorded in the ``make_way`` event. A
reason with ``interrupts = True`` is asked first, even while the robot holds after making way.
The other rules answer one hook of the policy each (control/policies.py).

Adding a rule: one module here, decorated with ``@register``, and its import below; a rule at a
new place of the step also needs a hook in ReportPolicy (docs/controller.md, "Adding a rule").
"""
from __future__ import annotations

REGISTRY: dict[str, type] = {}


class Rule:
    """A rule of one robot: its parameters, the policy that runs it, and what the robot hears of
    the others (the right of way, ``row``). A rule's counters are its own: numbers and flags are
    declared with their start value on the class (the first change makes them the robot's),
    anything else in ``__init__``.
    """

    name = ''

    def __init__(self, params, policy) -> None:
        self.params = params
        self.policy = policy
        self.row = policy.row


class Reason(Rule):
    """A reason to make way, asked by the selector in ascending ``precedence``; one that
    ``interrupts`` is asked even while the robot holds after making way. A reason fires only for
    a robot that has stood blocked or that another asks something (``RightOfWay.quiet`` is
    False): the selector asks none of them for a quiet robot, and a test holds every registered
    reason to it.
    """

    precedence = 100
    interrupts = False

    def fires(self, ctl, role, percept) -> int | None:
        """The id of the robot to make way for (0: one it cannot name), or None."""
        raise NotImplementedError


def register(cls: type) -> type:
    """Add a rule class under its ``name`` (unique)."""
    if cls.name in REGISTRY:
        raise ValueError(f'two rules named {cls.name!r}')
    REGISTRY[cls.name] = cls
    return cls


from thymio_road.control.rules import (back_with_the_one_ahead, blocked_crossing,  # noqa: E402,F401  (registration)
                                       cannot_back, code_tail, crossing_links, entry_watch, facing_light, give_up,
                                       in_the_ring_path, keep_behind_at_merge, make_way, merge_commit, merge_watch,
                                       outranked, priority_close_up, siding_clearance, siding_distance,
                                       yield_at_entry)
