# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Right of way between robots by IR (issue #13; the report's §11 remedies), free of ROS.

The report's robots only see each other with their proximity sensors, so two robots that see each
other in front both stop for good: a robot entering the roundabout and one crossing its entry
(§7.3), two robots face to face. The report names the remedy it had no time for: "the robot should
check if it can enter" a non-managed intersection, using the IR communication between robots (§8).

Each robot sends, by proximity communication (0.1 s period, as the lights), who it is:

- ``ANNOUNCE + role·64 + id`` (256..511): its robot id (1..63) and its *role*, the rank of the lane
  it is on (:class:`Role`): a priority vehicle, a robot inside an intersection (on the ring,
  crossing), a robot on the road, a robot about to enter;
- ``BLOCKED_BY + id`` (128..191), every other period while it has stood still for
  ``blocked_count`` events behind an obstacle: the id of the robot it hears strongest in front;
- ``WAITING + id`` (512..575), every other period instead, while it waits in a queue at a light:
  held by the light itself, or blocked behind a robot that says it waits;
- ``BACK_UP + id`` (576..639), every other period instead, while it makes way but cannot back
  because a robot stands close behind it: the id of the robot it hears strongest behind, or 0
  when it hears none (then it only says that it cannot back);
- ``PRIORITY_BEHIND + id`` (640..703), its own id, instead of "waiting" while a priority vehicle
  is behind it: heard on its rear sensors, or passed on by the robot behind it, which says this
  code too ("I wait at a light, and an ambulance waits behind me").

The rules, which cannot leave two robots waiting for each other:

- *yield*: a robot about to enter a roundabout stops while it hears a robot of a higher role in
  front (the ring has the right of way), at most ``yield_max`` events;
- *make way*: a robot that hears, on its front sensors, a robot of higher priority say it is
  blocked by it backs up for ``make_way_count`` events and then waits until that robot no longer
  says so. Priority is (role, then lower id): a total order, so of two robots blocking each other
  exactly one makes way, and a chain of waits ends at the highest robot in it, which never waits
  for a lower one;
- a robot that hears, on its front sensors, "back up" addressed to it makes way too, whatever
  its rank (a priority vehicle excepted): the robot in front backs for one that outranks it, and
  a queue behind a robot that must make way backs with it (an entering robot asked to make way
  by a ring robot cannot back with the next robot 17 cm behind it);
- a robot blocked 5 s (``crossing_give_up_count``) by a robot in front that says "back up" to
  another, or to nobody, makes way itself (a priority vehicle excepted): the robot in front
  makes way for it but cannot back (control/rules/cannot_back.py);
- a robot blocked for ``give_up_count`` events without being helped makes way itself (the other
  may not hear it: IR has a range of about 23 cm, the proximity sensors see farther sideways);
  a priority vehicle never does. In a queue at a light (it hears a waiting robot in front, or
  the controller heard a light in the last 2 s) it gives up only after twice as long: a red can
  outlast ``give_up_count``, and a robot that backs away from a queue may back over a code and
  misread it;
- a robot crossing blind on a roundabout's ring or in the crossroad, stopped by one it does not
  hear at its front right only, makes way after ``crossing_give_up_count`` events (the
  control/rules/blocked_crossing.py): that one came in from the right, often cannot back, and
  the crossing turns towards it;
- a robot held by a traffic light that hears a priority vehicle behind it drives on (report §11:
  the others give way to an ambulance), and a priority vehicle passes red lights;
- a queue at a light passes "priority behind" forward to the light (which gives the queue's lane
  green: :mod:`thymio_road.control.traffic_light`): robots in it close up to about 15 cm on the
  robot in front, as the ambulance does, because a robot's rear receivers hear the one behind only
  that close (enki_doc), and queues stand 17 cm apart. Only the robot right in front of the
  ambulance runs the red: a whole queue that ran it would meet the robots the light let out of
  the siding.

Light codes (20..79) and these codes never overlap, so lights and robots share the channel.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import enum

from thymio_road.control import messages
from thymio_road.control.messages import MAX_ID

BLOCKED_BY = messages.BLOCKED_BY.base
ANNOUNCE = messages.ANNOUNCE.base
WAITING = messages.WAITING.base
BACK_UP = messages.BACK_UP.base
PRIORITY_BEHIND = messages.PRIORITY_BEHIND.base
#: Receivers 0-4 are the front sensors (Aseba order), 5-6 the rear ones.
FRONT_SENSORS = 5
#: Events a message stays fresh: robots send every event, so a robot heard 3 events ago is near.
FRESH = 3
#: A priority vehicle (or the news of one) heard at least this strongly on the rear sensors is
#: right behind, in the same lane: closed up to about 15 cm, it reads 3700-3950 there; heard from
#: the lane beside, diagonally behind, about 1450 (docs/traffic.md, "Priority vehicle").
PRIORITY_REAR = 3000


class Role(enum.IntEnum):
    """The rank of the lane a robot is on, announced by IR; higher goes first."""

    ENTERING = 0
    ROAD = 1
    INSIDE = 2
    PRIORITY = 3


@dataclass
class Heard:
    role: int
    front: int
    rear: int
    age: int = 0


def announce_code(role: Role, robot_id: int) -> int:
    return messages.encode(messages.ANNOUNCE, messages.ID_SPAN * int(role) + robot_id)


def blocked_code(robot_id: int) -> int:
    return messages.encode(messages.BLOCKED_BY, robot_id)


def waiting_code(robot_id: int) -> int:
    return messages.encode(messages.WAITING, robot_id)


def back_up_code(robot_id: int) -> int:
    return messages.encode(messages.BACK_UP, robot_id)


def priority_behind_code(robot_id: int) -> int:
    return messages.encode(messages.PRIORITY_BEHIND, robot_id)


def announcement(code: int) -> tuple[int, int] | None:
    """A received value → (role, robot id) when it is a robot's announcement, else None."""
    decoded = messages.decode(code)
    if decoded is None or decoded[0] is not messages.ANNOUNCE or not decoded[1] % messages.ID_SPAN:
        return None
    return divmod(decoded[1], messages.ID_SPAN)


def waiting_robot(code: int) -> int | None:
    """A received value → the id of the robot that says it waits at a light ("waiting", or
    "priority behind"), else None.
    """
    decoded = messages.decode(code)
    if decoded is None or decoded[0] not in (messages.WAITING, messages.PRIORITY_BEHIND) or not decoded[1]:
        return None
    return decoded[1]


def priority_behind_robot(code: int) -> int | None:
    """A received value → the id of the robot that says it waits with a priority vehicle behind it."""
    decoded = messages.decode(code)
    return decoded[1] if decoded is not None and decoded[0] is messages.PRIORITY_BEHIND and decoded[1] else None


def outranks(role_a: int, id_a: int, role_b: int, id_b: int) -> bool:
    """Whether robot a goes before robot b: higher role, then the lower id."""
    return (role_a, -id_a) > (role_b, -id_b)


class RightOfWay:
    """What one robot hears of the others and what it says: the pure core of the rules above."""

    def __init__(self, robot_id: int, blocked_count: int = 20) -> None:
        if not 1 <= robot_id <= MAX_ID:
            raise ValueError(f'robot_id must be in 1..{MAX_ID}, got {robot_id}')
        self.robot_id = robot_id
        self.blocked_count = blocked_count
        #: Its announcement per role (sent every other period at least: encoded once).
        self._announce = [announce_code(role, robot_id) for role in Role]
        #: Robots heard lately: id -> what we know of them.
        self.heard: dict[int, Heard] = {}
        #: Events since a robot in front last said it is blocked by this one (None: not lately).
        #: Who said it is not in the message: the robot heard strongest in front (ahead()).
        self.blocking: int | None = None
        #: Events this robot has stood still behind an obstacle.
        self.blocked = 0
        #: Events since a robot in front last said it waits at a light (None: not lately).
        self.waiting_ahead: int | None = None
        #: Events since a robot in front last asked this one to back up (None: not lately).
        self.asked_back: int | None = None
        #: Events since a robot behind last said a priority vehicle waits behind it (None: not lately).
        self.priority_passed_on: int | None = None
        #: Events since a robot in front last asked another to back up: it makes way and cannot
        #: back (None: not lately).
        self.ahead_cannot_back: int | None = None
        self._events = 0

    def hear(self, code: int, intensities: Sequence[int] | None) -> bool:
        """A received value; True when it was a robot's (so not for the lights)."""
        decoded = messages.decode(code)
        if decoded is None:
            return False
        kind, value = decoded
        values = [int(v) for v in intensities] if intensities is not None and len(intensities) else [1] * 7
        front, rear = max(values[:FRONT_SENSORS], default=0), max(values[FRONT_SENSORS:], default=0)
        if kind is messages.ANNOUNCE:
            role, robot = divmod(value, messages.ID_SPAN)
            if robot and robot != self.robot_id:
                self.heard[robot] = Heard(role, front, rear)
        elif kind is messages.BLOCKED_BY:
            if value == self.robot_id and front > 0:
                self.blocking = 0
        elif kind is messages.BACK_UP:
            if front > 0:
                if value == self.robot_id:
                    self.asked_back = 0
                else:
                    self.ahead_cannot_back = 0
        elif value not in (0, self.robot_id):  # WAITING or PRIORITY_BEHIND
            if front > 0:
                self.waiting_ahead = 0
            if rear >= PRIORITY_REAR and kind is messages.PRIORITY_BEHIND:
                self.priority_passed_on = 0
        return True

    def tick(self, obstructed: bool) -> None:
        """Once per event, after the controller's step: ages what was heard, counts the block."""
        self._events += 1
        heard = self.heard
        if heard:
            for robot in list(heard):
                heard[robot].age += 1
                if heard[robot].age > FRESH:
                    del heard[robot]
        # Most events nobody asks anything: a request not heard stays None without a call.
        if self.blocking is not None:
            self.blocking = _aged(self.blocking)
        if self.waiting_ahead is not None:
            self.waiting_ahead = _aged(self.waiting_ahead)
        if self.asked_back is not None:
            self.asked_back = _aged(self.asked_back)
        if self.priority_passed_on is not None:
            self.priority_passed_on = _aged(self.priority_passed_on)
        if self.ahead_cannot_back is not None:
            self.ahead_cannot_back = _aged(self.ahead_cannot_back)
        self.blocked = self.blocked + 1 if obstructed else 0

    def quiet(self) -> bool:
        """Not blocked, and no robot asks this one anything: no reason to make way can hold."""
        return (not self.blocked and self.blocking is None and self.asked_back is None
                and self.ahead_cannot_back is None)

    def ahead(self) -> int | None:
        """The robot heard strongest on the front sensors, or None."""
        front = [(h.front, -robot, robot) for robot, h in self.heard.items() if h.front > 0]
        return max(front)[2] if front else None

    def behind(self) -> int | None:
        """The robot heard strongest on the rear sensors, or None."""
        rear = [(h.rear, -robot, robot) for robot, h in self.heard.items() if h.rear > 0]
        return max(rear)[2] if rear else None

    def in_light_queue(self, held_by_light: bool) -> bool:
        """Held by a light, or standing behind a robot in front that says it waits at one."""
        return held_by_light or (self.blocked > 0 and self.waiting_ahead is not None)

    def tx(self, role: Role, held_by_light: bool = False, backing_blocked: bool = False) -> int:
        """The value to send this period: the announcement, alternating with "back up" while it
        makes way with a robot close behind, else "waiting" in a queue at a light ("priority
        behind" when a priority vehicle waits behind), or else "blocked by" (asking the robot
        ahead to make way).
        """
        if self._events % 2:
            if backing_blocked:
                # To the robot heard behind; to nobody (0) when none is heard, so that the robot
                # in front still learns that this one cannot back (the robot behind may stand
                # beyond the rear receivers' 15.5 cm).
                return back_up_code(self.behind() or 0)
            if self.in_light_queue(held_by_light):
                if self.priority_behind() or self.priority_passed_on is not None:
                    return priority_behind_code(self.robot_id)
                return waiting_code(self.robot_id)
            if self.blocked >= self.blocked_count:
                robot = self.ahead()
                if robot is not None:
                    return blocked_code(robot)
        return self._announce[role]

    def higher_ahead(self, role: Role) -> int | None:
        """A robot of a higher role heard in front (to yield to), or None."""
        for robot, h in sorted(self.heard.items()):
            if h.front > 0 and h.role > role:
                return robot
        return None

    def priority_behind(self) -> bool:
        """A priority vehicle heard right behind (PRIORITY_REAR): one waits behind this robot."""
        return any(h.role == Role.PRIORITY and h.rear >= PRIORITY_REAR for h in self.heard.values())

    def closes_up_for_priority(self) -> bool:
        """In a queue at a light, with a priority vehicle behind (heard, or passed on): close up on
        the robot in front, so that it hears the news.
        """
        return (self.waiting_ahead is not None
                and (self.priority_passed_on is not None or self.priority_behind())
                and self.ahead() is not None)

    def must_make_way(self, role: Role) -> int | None:
        """The robot in front, when it outranks this one and says this one blocks it, or None."""
        if self.blocking is None:
            return None
        robot = self.ahead()
        if robot is None:
            return None
        h = self.heard[robot]
        return robot if outranks(h.role, robot, role, self.robot_id) else None


def _aged(since: int | None) -> int | None:
    """Events since a request was last heard, one event later; None once it is no longer fresh."""
    if since is None or since > FRESH:
        return None
    return since + 1
