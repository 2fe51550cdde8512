# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic-light Thymios (report §7.2, §7.4, §9; Appendix A): what a light sends and shows over
time, its battery, and how a robot decodes what it hears; free of ROS.

The codes and the lanes they address are the map's (:mod:`thymio_road.map.lights`).

Actuation (:class:`Timing`'s ``clearance_extension``, location lights only): the light is a
Thymio and hears the robots' announcements (:mod:`thymio_road.control.right_of_way`). A robot
on a location's road lane announces itself *inside* the intersection, one leaving the siding
*entering*, so the light knows which lane a robot it hears is on. After a lane's green, the all
red lasts ``clearance`` and, while the light still hears a robot of that lane driving (its
announcements keep coming and it does not say it waits at a light), longer, by at most
``clearance_extension``. A road robot that passed the siding's entry at the end of its green can
need longer to the merge than the all red (20 s against 15 s, 15 robots seed 6 at L2), and the
light heard it over its last 5 s there.

Pre-emption for a priority vehicle (:class:`Timing`'s ``priority_preemption``; report §11,
"priority vehicles such as ambulance"): a queue at the light passes "priority behind" forward to
the robot the light holds, which says it to the light (:mod:`thymio_road.control.right_of_way`);
a location's light knows that robot's lane by the role it announces. It then ends the other
lane's green at once (its all red still runs, extension included, for the robots that lane let
go), reopens the queue's lane without an all red when it has just closed it (no robot of the
other lane has been let go since), and holds its green while the news keeps coming. It changes
its order for one lane for at most ``priority_preemption`` s, and only again once the other lane
has had a whole green: without that limit L1's light gave the road lane green again and again
while a siding robot it held stood in the road robots' way, and the ambulance never arrived
(priority seed 5).

A crossroad's lights pre-empt as one signal group: one that changed its order alone would open
conflicting arms. Every arm's robots announce the same role, so a light knows the lane only by
where it stands: one that commands one arm (or arms of one phase) turns "priority behind" into a
:class:`Demand` for its phase, which the traffic_light node sends to the whole group, itself
included (:meth:`TrafficLight.share`). A demand counts from ``GROUP_DELAY`` after it was heard, by
every member alike, so members asked for the same times agree whatever the link's latency
within that budget. Until the first demand counts, a member is exactly the fixed-time light.

The battery (:class:`Battery`): the report saw the lights' range shrink as their batteries ran
down (§9) but gives no figures. The law here is a chosen one: the IR intensity follows the charge,
which halves every ``half_life`` seconds (600 s by default), so that with the documented channel
the range x0 + √g·(ρ − x0) falls from 23 cm to 16.3 cm after 10 minutes and to 8.1 cm after 30.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
import math
from typing import Any, Mapping

from thymio_road.control.right_of_way import announcement, priority_behind_robot, Role, waiting_robot
from thymio_road.map.lights import ALL_STOP, CODE_MAX, CODE_MIN, GO, LightPlace, STOP

#: Top LED colours (Aseba 0..32): phase 0 green, phase 1 blue, clearance red.
PHASE_COLOURS = ((0, 32, 0), (0, 0, 32))
CLEARANCE_COLOUR = (32, 0, 0)
#: Battery voltage of a Thymio's Li-ion cell, full and empty (V), for BatteryState.
VOLTAGE_FULL, VOLTAGE_EMPTY = 4.2, 3.3
#: Actuation: a robot the light heard within this many seconds is near (robots announce every
#: 0.1 s, and a robot in a queue at a light says "waiting" every other period).
HEARD_FOR = 0.5
#: Pre-emption: "priority behind" heard within this many seconds is a demand for the lane (the
#: robot the light holds says it every other period).
PREEMPT_FOR = 1.0
#: The roles that put a robot on a location's lane (a priority vehicle may be on either).
LANE_ROLES = {'road': (Role.INSIDE, Role.PRIORITY), 'siding': (Role.ENTERING, Role.PRIORITY)}
#: A crossroad's demand counts this many seconds after it was heard, at every member of the group:
#: the latency budget of the link that carries it (the traffic_light nodes' shared topic).
GROUP_DELAY = 0.2


def decode(code: int) -> tuple[str, int] | None:
    """A received value → ('stop' | 'go' | 'all_stop', node id), or None when it is no light code."""
    code = int(code)
    if not CODE_MIN <= code <= CODE_MAX:
        return None
    base = (code - STOP) // 20
    return ('stop', 'go', 'all_stop')[base], code - STOP - 20 * base


# --- timing, codes and colours -------------------------------------------------------------------

def _setting(default: float | bool, low: float = -math.inf, high: float = math.inf, unit: str = '',
             location_only: bool = False) -> Any:
    """A field of Timing or Battery with its range: the one declaration the scenario reader and
    the traffic_light node derive their keys, types and defaults from (its default's type is its
    type); `location_only`: only a location's light uses it (it hears which lane a robot is on).
    """
    return field(default=default, metadata={'range': (low, high), 'unit': unit, 'location_only': location_only})


def _check_ranges(settings: Any) -> None:
    """Every numeric field of `settings` within its declared range; the error names the field and value."""
    for f in fields(settings):
        value = getattr(settings, f.name)
        if isinstance(f.default, bool):
            continue
        low, high = f.metadata['range']
        if math.isinf(low) and math.isinf(high):
            if not math.isfinite(value):
                raise ValueError(f'{f.name} must be finite, got {value}')
        elif not low <= value <= high:
            unit = f" {f.metadata['unit']}" if f.metadata['unit'] else ''
            raise ValueError(f'{f.name} must be in [{low:g}, {high:g}]{unit}, got {value}')


@dataclass(frozen=True)
class Timing:
    """Fixed-time control: each phase `green` seconds, then `clearance` seconds all red."""

    green: float = _setting(8.0, 0.5, 600, 's')
    clearance: float = _setting(5.0, 0, 60, 's')
    #: Seconds added to the clock (lights of one crossroad share it, so they stay in step).
    offset: float = _setting(0.0, unit='s')
    #: Actuation (location lights): the most an all red is extended while the light hears a
    #: robot of the lane it closed still driving (0: fixed time).
    clearance_extension: float = _setting(0.0, 0, 60, 's', location_only=True)
    #: Pre-emption: the longest the light changes its order for one lane (ends the other's
    #: green, reopens or holds this one's) while it hears that a priority vehicle waits in that
    #: lane's queue; then the other lane has a whole green (0: no pre-emption). A crossroad's
    #: lights pre-empt together, as one signal group (the scenario gives them one value).
    priority_preemption: float = _setting(0.0, 0, 120, 's')

    def __post_init__(self) -> None:
        _check_ranges(self)

    def longest_cycle(self, phases: int = 2, priority: bool = False) -> float:
        """The longest a light takes to come back to a phase: every green and extended all red,
        and with a priority vehicle about, every green held for it. With pre-emption this bounds
        the reds while one phase at a time asks and green + clearance + extension is at most
        ``priority_preemption`` (a lane reopened late in its all red, or again just before its
        pre-emption runs out, still has a whole green); alternating demands can hold it longer.
        """
        held = self.priority_preemption if priority else 0.0
        return phases * (self.green + held + self.clearance + self.clearance_extension)

    def longest_red(self, phases: int = 2, priority: bool = False) -> float:
        """The longest a lane waits from the end of its green to its next green."""
        return self.longest_cycle(phases, priority) - self.green

    def phase_at(self, t: float, phases: int = 2) -> int | None:
        """The open phase at time t (s), or None during a clearance (every phase is followed by one)."""
        slot = self.green + self.clearance
        u = (t + self.offset) % (phases * slot)
        k = int(u // slot)
        return k if u - k * slot < self.green else None


@dataclass(frozen=True)
class Battery:
    """A light's battery: the charge, hence the IR intensity, halves every `half_life` seconds."""

    decay: bool = _setting(False)
    half_life: float = _setting(600.0, 1.0, 1e7, 's')
    initial: float = _setting(1.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        _check_ranges(self)

    def charge(self, t: float) -> float:
        """Charge fraction at time t (s); also the emitted IR intensity relative to a full battery."""
        if not self.decay:
            return self.initial
        return self.initial * 0.5 ** (max(t, 0.0) / self.half_life)

    def voltage(self, t: float) -> float:
        return VOLTAGE_EMPTY + (VOLTAGE_FULL - VOLTAGE_EMPTY) * self.charge(t)


#: Timing's fields only a location's light uses (a crossroad's robots all announce one role, so its
#: light cannot tell that a robot it hears drives in the lane it closed).
LOCATION_ONLY = tuple(f.name for f in fields(Timing) if f.metadata['location_only'])
#: Battery's fields sit under this key in a scenario's `lights:` and are the traffic_light
#: node's parameters with this prefix and '_' (battery_decay, battery_half_life, battery_initial).
BATTERY_KEY = 'battery'


def setting_types(cls: type) -> dict[str, type]:
    """Each field of Timing or Battery → its type (that of its default: rclpy types a parameter so)."""
    return {f.name: type(f.default) for f in fields(cls)}


def node_parameters(timing: Timing, battery: Battery) -> dict[str, Any]:
    """The traffic_light node's parameters for `timing` and `battery`, each of its field's type
    (a YAML `0` for a float field becomes 0.0: rclpy refuses another type than the default's).
    """
    out = {name: kind(getattr(timing, name)) for name, kind in setting_types(Timing).items()}
    out.update({f'{BATTERY_KEY}_{name}': kind(getattr(battery, name))
                for name, kind in setting_types(Battery).items()})
    return out


def from_node_parameters(values: Mapping[str, Any]) -> tuple[Timing, Battery]:
    """The Timing and Battery that `node_parameters` gave `values`; ValueError out of range."""
    timing = Timing(**{name: values[name] for name in setting_types(Timing)})
    battery = Battery(**{name: values[f'{BATTERY_KEY}_{name}'] for name in setting_types(Battery)})
    return timing, battery


@dataclass(frozen=True)
class Demand:
    """A crossroad light heard that a priority vehicle waits in the queue of a lane `phase` opens
    (at time `t`): what its node sends to every light of `intersection`.
    """

    intersection: str
    phase: int
    t: float


class TrafficLight:
    """What one light sends and shows at time t: the pure core of the traffic_light node.

    A fixed-time light's phase is a function of the time. An actuated one (a location light
    with a ``clearance_extension`` or a ``priority_preemption``, or a crossroad's signal group
    member once a demand counts) keeps its phase and what it heard, and is asked for
    increasing times, as a node's timer does; when the time goes back (a restarted clock) it
    starts again where the fixed-time light would be.
    """

    def __init__(self, place: LightPlace, timing: Timing = Timing()) -> None:
        self.place = place
        self.timing = timing
        self.actuated = place.kind == 'location' and (timing.clearance_extension > 0 or timing.priority_preemption > 0)
        #: A member of its crossroad's signal group: it pre-empts on the demands the group shares.
        self.group = place.kind == 'crossroad' and timing.priority_preemption > 0
        #: The phase a demand of this light asks for: that of its lanes, when they share one.
        phases = {lane.phase for lane in place.lanes}
        self._demand_phase = phases.pop() if self.group and len(phases) == 1 else None
        #: Actuated: slot 2k is phase k's green, 2k + 1 the all red after it; since when.
        self._slot: int | None = None
        self._start = 0.0
        self._extended = False
        #: Pre-emption: the phase the light last changed its order for, and since when (None:
        #: the other phase has had its green since).
        self._preempted: tuple[int, float] | None = None
        self._now = -math.inf
        #: Robot id -> (role, time) of its last announcement, and time it last said it waits.
        self._announced: dict[int, tuple[int, float]] = {}
        self._waiting: dict[int, float] = {}
        #: Phase -> time the light last heard that a priority vehicle waits in its lane's queue
        #: (a group member: the latest time a shared demand for it counts from).
        self._demand: dict[int, float] = {}
        #: A group member's shared demands that do not count yet: (time they count from, phase).
        self._pending: list[tuple[float, int]] = []
        #: Seconds the all reds were extended, summed, and times the light pre-empted a phase
        #: for a priority vehicle (for the node's log and tests).
        self.extended_s = 0.0
        self.preemptions = 0

    def hear(self, t: float, code: int) -> Demand | None:
        """A value the light received by IR at time t: robots' announcements, "waiting" and
        "priority behind" (which asks for the sender's lane, by the role it announces). A
        crossroad's group member does not act alone: it returns the demand its node shares
        with the group (None when it heard none, or commands lanes of both phases and so
        cannot tell which the queue is in).
        """
        if self.group:
            if self._demand_phase is None or priority_behind_robot(code) is None:
                return None
            return Demand(self.place.intersection, self._demand_phase, t)
        if not self.actuated:
            return None
        heard = announcement(code)
        if heard is not None:
            role, robot = heard
            self._announced[robot] = (role, t)
        robot = waiting_robot(code)
        if robot is not None:
            self._waiting[robot] = t
        robot = priority_behind_robot(code)
        if robot is not None and self.timing.priority_preemption > 0 and robot in self._announced:
            role, when = self._announced[robot]
            if t - when > HEARD_FOR:
                return None  # which lane it is on is not known
            for lane in self.place.lanes:
                if role != Role.PRIORITY and role in LANE_ROLES.get(lane.name, ()):
                    self._demand[lane.phase] = t
        return None

    def share(self, demand: Demand) -> None:
        """A demand of this light's signal group (its own included): it counts from
        ``demand.t + GROUP_DELAY``, so that every member counts it from the same time.
        """
        if self.group and demand.intersection == self.place.intersection:
            self._pending.append((demand.t + GROUP_DELAY, demand.phase))

    def phase(self, t: float) -> int | None:
        """The open phase at time t, or None during an all red."""
        if not (self.actuated or self.group):
            return self.timing.phase_at(t, self.place.phases)
        if t < self._now:
            self._restart()
        self._now = t
        if self.group:
            self._count_demands(t)
            if not self._demand:
                return self.timing.phase_at(t, self.place.phases)  # fixed time until a demand counts
        self._advance(t)
        assert self._slot is not None
        return None if self._slot % 2 else self._slot // 2

    def _restart(self) -> None:
        """The clock went back: start again where the fixed-time light would be."""
        self._slot, self._extended = None, False
        self._preempted = None
        self._announced.clear()
        self._waiting.clear()
        self._demand.clear()
        self._pending.clear()

    def _count_demands(self, t: float) -> None:
        """The shared demands that count at t join what the light heard, as its own would."""
        if not self._pending:
            return
        due = [(when, p) for when, p in self._pending if when <= t]
        if due:
            self._pending = [(when, p) for when, p in self._pending if when > t]
            for when, p in due:
                self._demand[p] = max(self._demand.get(p, -math.inf), when)

    def _advance(self, t: float) -> None:
        g, c, x = self.timing.green, self.timing.clearance, self.timing.clearance_extension
        if self._slot is None:
            # Start where the fixed-time light would be, so that both agree until a robot is heard
            # (a group member: until the first demand counts).
            slot = g + c
            u = (t + self.timing.offset) % (self.place.phases * slot)
            k = int(u // slot)
            into = u - k * slot
            self._slot = 2 * k + (into >= g)
            self._start = t - (into if into < g else into - g)
        while True:
            elapsed = t - self._start
            phase = self._slot // 2
            wanted = self._wanted(t)
            if self._slot % 2 == 0:
                if wanted is not None and wanted != phase:
                    self._preempt(wanted, t)
                    end = t  # a priority vehicle waits in the other lane: end this green now
                elif wanted == phase and elapsed >= g:
                    self._preempt(phase, t)
                    return  # hold the green while the priority vehicle's queue drives
                elif elapsed < g:
                    return
                else:
                    end = max(self._start + g, self._demand_end(phase))
                    if self._preempted is not None and self._preempted[0] != phase:
                        self._preempted = None  # the other lane has had its green: it may start again
            elif wanted == phase:
                # The light closed this lane, and the other has not been let go since: reopen it
                # at once, without an all red.
                self._preempt(phase, t)
                self._slot, self._start = 2 * phase, t
                continue
            else:
                if elapsed < c:
                    return
                if elapsed < c + x and self._lane_driving(phase, t):
                    self._extended = True
                    return
                end = min(t, self._start + c + x) if self._extended else self._start + c
                self.extended_s += end - (self._start + c)
                self._extended = False
            self._slot = (self._slot + 1) % (2 * self.place.phases)
            self._start = end

    def _wanted(self, t: float) -> int | None:
        """The phase whose lane a priority vehicle waits in (heard within PREEMPT_FOR), or None:
        also when both lanes ask (the light keeps its order), and once the light has changed its
        order for that phase ``priority_preemption`` seconds ago (the other lane's robots, one
        of which may stand in the way, get their turn). A light has two phases, so the all red
        after the other lane's green leads to it.
        """
        wanted = [p for p, when in self._demand.items() if t - when <= PREEMPT_FOR]
        if len(wanted) != 1:
            return None
        if self._preempted is not None and self._preempted[0] == wanted[0] \
                and t - self._preempted[1] >= self.timing.priority_preemption:
            return None
        return wanted[0]

    def _preempt(self, phase: int, t: float) -> None:
        if self._preempted is None or self._preempted[0] != phase:
            self._preempted = (phase, t)
            self.preemptions += 1

    def _demand_end(self, phase: int) -> float:
        """When the demand for `phase` lapsed, or its pre-emption ran out: where a green held
        for it ends (-inf when the light has not changed its order for it).
        """
        if self._preempted is None or self._preempted[0] != phase:
            return -math.inf
        return min(self._demand.get(phase, -math.inf) + PREEMPT_FOR,
                   self._preempted[1] + self.timing.priority_preemption)

    def _lane_driving(self, phase: int, t: float) -> bool:
        """A robot of a lane that `phase` opens is heard, and does not say it waits at a light."""
        roles = {int(r) for lane in self.place.lanes if lane.phase == phase for r in LANE_ROLES.get(lane.name, ())}
        for robot, (role, when) in list(self._announced.items()):
            if t - when > HEARD_FOR:
                del self._announced[robot]
                continue
            if role in roles and t - self._waiting.get(robot, -math.inf) > HEARD_FOR:
                return True
        return False

    def codes(self, t: float) -> list[int]:
        """The values this light cycles through (one per 0.1 s period) at time t."""
        p = self.phase(t)
        if self.place.kind == 'location':
            n = self.place.node
            # One value speaks to both lanes: +40 opens the road lane (and holds the siding),
            # +20 opens the siding (and holds the road), +60 holds both.
            return [n + ALL_STOP] if p is None else [n + GO] if p == 0 else [n + STOP]
        codes = []
        for lane in self.place.lanes:
            for a in lane.addresses:
                codes.append(a + (GO if p is not None and lane.phase == p else STOP))
        return codes

    def code(self, t: float, period: int) -> int:
        """The value for the `period`-th transmission (0.1 s periods), cycling through codes(t)."""
        codes = self.codes(t)
        return codes[period % len(codes)] if codes else 0

    def led(self, t: float) -> tuple[int, int, int]:
        p = self.phase(t)
        return CLEARANCE_COLOUR if p is None else PHASE_COLOURS[p % len(PHASE_COLOURS)]


def lane_open(place: LightPlace, lane: str, timing: Timing, t: float) -> bool:
    """Whether `lane` of `place` is open at time t (for tests and metrics)."""
    p = timing.phase_at(t, place.phases)
    return p is not None and any(x.name == lane and x.phase == p for x in place.lanes)


def phase_names(place: LightPlace) -> Sequence[str]:
    """Human names of the phases: the lanes each opens."""
    return ['+'.join(x.name for x in place.lanes if x.phase == p) or f'phase {p}' for p in range(place.phases)]
