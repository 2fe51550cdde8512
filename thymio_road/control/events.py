# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""What the controller is in and what it reports: the report's states (§3, Fig. 2), the kinds of
intersection (actionType), the modes the traffic rules add, and the events a bag records.
"""
from __future__ import annotations

from dataclasses import dataclass
import enum


class State(enum.Enum):
    """The report's state machine (§3, Fig. 2)."""

    ROAD = 1
    READ = 2
    ACTION = 3
    CONTINUE = 4
    EXIT = 5
    BACK = 6
    STOP = 7


#: The states in which a robot drives (and so may be asked to make way).
DRIVING = (State.ROAD, State.ACTION, State.EXIT, State.CONTINUE, State.READ)


class Action(enum.IntEnum):
    """actionType of Appendix A: the kind of intersection, which also sets CONTINUE's bias."""

    BRANCHING = 0
    ROUNDABOUT = 1
    CROSSROAD = 2
    LOCATION = 3


#: Table 6: codes on the road that announce an intersection.
INTERSECTION_CODES = {4: Action.BRANCHING, 5: Action.CROSSROAD, 6: Action.LOCATION, 7: Action.ROUNDABOUT}


class Mode(enum.Enum):
    """What overrides the state's own driving this step, so that a bag shows it (the `mode`
    events): the report's STOP split by its cause, and the modes of the recovery and the
    traffic rules, which the state alone does not tell.
    """

    DRIVING = 'driving'
    STOPPED = 'stopped'            # the centre button (§3)
    DELIVERING = 'delivering'      # the 2 s stop in a location (§7.2)
    HELD_BY_LIGHT = 'held_by_light'
    MAKING_WAY = 'making_way'
    HOLDING = 'holding'            # after making way, until the other passes
    RETURNING = 'returning'        # inside an intersection: driving back to where it made way
    YIELDING = 'yielding'          # at a roundabout's or a crossroad's entry
    PAUSED_READING = 'paused_reading'
    WAITING_AT_TRIGGER = 'waiting_at_trigger'
    UTURN = 'uturn'                # recovery 'both': turning round from a wrong-way drive
    SPIN_LEFT = 'spin_left'        # recovery 'both': lost beyond the road's right edge


@dataclass(frozen=True)
class Event:
    """Something worth recording: a state change, a barcode read, a decision."""

    kind: str
    data: dict
