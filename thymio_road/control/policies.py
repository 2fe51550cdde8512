# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Traffic policies: the hooks where the report's robots and the improved rules differ.

The report's state machine (control/machine.py) and the controller's step (control/controller.py)
ask their policy at each of these places. :class:`ReportPolicy` answers as the report's robots
did (they know each other only by their proximity sensors, §6, and their jams reproduce);
:class:`ImprovedPolicy` runs the rules of control/rules/ (docs/controller.md lists the hooks and
the rules' precedence). A policy is chosen by ``traffic_rules`` (:data:`POLICIES`).
"""
from __future__ import annotations

from thymio_road.control import rules
from thymio_road.control.events import DRIVING, Mode
from thymio_road.control.percept import Percept
from thymio_road.control.right_of_way import RightOfWay


class ReportPolicy:
    """The report's robots: no IR between robots, BACK at a barcode's trigger, timed counts."""

    #: Whether the robot sends by IR (announcements, requests).
    talks = False
    #: READ pauses while something is in front (improved) or runs on (the report).
    pauses_reading = False
    #: At a barcode's trigger with a robot in front: wait (improved) or back up (§6).
    waits_at_trigger = False
    #: Whether `front` may add sensors to the report's three, and whether `mode` may name one
    #: (else they are not asked: the step runs 10 times per robot and simulated second).
    watches_front_left = False
    has_modes = False
    #: Random choices on a ring end after one lap (improved, with a map: control/navigation.py);
    #: the report's robots choose at random at every exit, lap after lap.
    one_lap = False
    #: A ring robot that drives on far past where its next mark should have been concludes it
    #: left the ring unawares (improved, with a map: control/navigation.py); the report's robots
    #: counted marks on whatever road they had been carried onto.
    notices_left_ring = False

    def __init__(self, params) -> None:
        self.params = params

    # --- IR ---------------------------------------------------------------------------------------
    def hear(self, ctl, code: int, intensities) -> bool:
        """A received value: True when it was a robot's (then not a light's)."""
        return False

    def tx(self, ctl) -> int:
        return 0

    def priority_behind(self, ctl) -> bool:
        """A priority vehicle waits right behind: a light's stop does not hold (§11)."""
        return False

    # --- the step ----------------------------------------------------------------------------------
    def override(self, ctl, percept: Percept) -> tuple[int, int] | None:
        """The wheels when a rule takes over this step (making way, holding, yielding), else None."""
        return None

    def front_limit(self, ctl) -> int:
        """The front reading at which a reading pauses, or a robot stops at a barcode's trigger."""
        return self.params.obs_threshold

    def on_front_obstacle(self, ctl, percept: Percept) -> None:
        """Something in front beyond front_limit, before the state's handler runs."""

    def front(self, ctl, percept: Percept) -> int:
        """The front reading the avoidance acts on (§6)."""
        return percept.front

    def stop_at(self, ctl) -> int:
        """The front reading at which avoidance v2 stops the robot."""
        return self.params.obs_threshold_max

    def marks_suppressed(self, ctl) -> bool:
        """No barcode triggers while driving again over road already read."""
        return False

    def exit_frozen(self, ctl) -> bool:
        """The EXIT count stands still this step."""
        return False

    def after_drive(self, ctl, left: int, right: int) -> None:
        """The robot drove this step (non-zero wheels, before calibration)."""

    def after_step(self, ctl, wheels: tuple[int, int]) -> None:
        """Once per step, with the calibrated wheels."""

    def mode(self, ctl) -> Mode | None:
        """The policy's own mode this step (making way, holding, yielding), or None."""
        return None

    def at_rest(self, ctl) -> bool:
        """A step on the road with nothing in front or behind would run none of the policy's
        hooks but `after_drive` and `after_step` (RoadController's rest steps).
        """
        return True

    # --- the machine's moments ---------------------------------------------------------------------
    def on_intersection(self, ctl) -> None:
        """An intersection code was read."""

    def on_siding_entered(self, ctl) -> None:
        """The robot took a location's exit into its siding."""

    def on_link_entered(self, ctl) -> None:
        """The robot left a branching by its link."""

    # --- lights ------------------------------------------------------------------------------------
    def merge_committed(self, ctl) -> bool:
        """On a location's road lane, past the point where a light may still stop it."""
        return False

    def siding_stop(self, ctl, command: str, stop: bool) -> bool:
        """Whether a light's code addressed to the siding lane stops the robot."""
        return stop

    def siding_lane_advances(self, ctl) -> bool:
        """Whether this step counts towards the end of the siding's light lane."""
        return True

    def on_siding_lane_left(self, ctl) -> None:
        """The siding's light lane ended (light_siding_count)."""

    def on_siding_hold(self, ctl) -> None:
        """The robot waits in the siding for its light again."""


class ImprovedPolicy(ReportPolicy):
    """The improved rules: right of way by IR (control/right_of_way.py) and the rules of
    control/rules/, each one module, run in their stated precedence.
    """

    # It talks, pauses a reading and waits at a trigger for a robot in front, watches the
    # front-left sensor while merging, and has modes of its own.
    talks = pauses_reading = waits_at_trigger = watches_front_left = has_modes = one_lap = True
    notices_left_ring = True

    def __init__(self, params) -> None:
        super().__init__(params)
        self.row = RightOfWay(params.robot_id, params.blocked_count)
        self.rules = {name: cls(params, self) for name, cls in rules.REGISTRY.items()}
        r = self.rules
        self.make_way = r['make_way']
        self.merge_watch = r['merge_watch']
        self.keep_behind = r['keep_behind_at_merge']
        self.entry_watch = r['entry_watch']
        self.merge_commit = r['merge_commit']
        self.siding_clearance = r['siding_clearance']
        self.yield_at_entry = r['yield']
        self.close_up = r['priority_close_up']
        self.facing_light = r['facing_light']
        self.blocked_crossing = r['crossing']
        self.siding_distance = r['siding_distance']
        self.code_tail = r['code_tail']
        #: Reasons to make way, by precedence; those that `interrupt` a hold
        #: are asked before the making of way under way runs on.
        reasons = sorted((rule for rule in r.values() if isinstance(rule, rules.Reason)),
                         key=lambda rule: rule.precedence)
        self.interrupting = [rule for rule in reasons if rule.interrupts]
        self.reasons = [rule for rule in reasons if not rule.interrupts]

    def hear(self, ctl, code: int, intensities) -> bool:
        return self.row.hear(code, intensities)

    def tx(self, ctl) -> int:
        return self.row.tx(ctl.role(), ctl.lights.stopped, self.make_way.backing_blocked)

    def priority_behind(self, ctl) -> bool:
        return self.row.priority_behind()

    def override(self, ctl, percept: Percept) -> tuple[int, int] | None:
        """The selector: a request that interrupts, the making of way under way (and the hold
        after it), then the reasons to make way in precedence, then the yield at an entry.
        """
        make_way, row = self.make_way, self.row
        role = ctl.role()
        if row.quiet() and not make_way.active():
            return self.yield_at_entry.wheels(ctl, role, percept)  # no reason can fire (rules.Reason)
        for rule in self.interrupting:
            other = rule.fires(ctl, role, percept)
            if other is not None:
                make_way.holding = None
                make_way.start(ctl, other, rule.name, role)
                break
        wheels = make_way.step(ctl, percept)
        if wheels is not None and not make_way.blocked_returning:
            return wheels
        other = None
        for rule in self.reasons:
            other = rule.fires(ctl, role, percept)
            if other is not None:
                break
        if other is not None and ctl.state in DRIVING:
            make_way.start(ctl, other, rule.name, role)
            return self.override(ctl, percept)
        return wheels or self.yield_at_entry.wheels(ctl, role, percept)

    def front_limit(self, ctl) -> int:
        return self.close_up.front_limit(ctl)

    def on_front_obstacle(self, ctl, percept: Percept) -> None:
        self.facing_light.on_front_obstacle(ctl, percept)

    def front(self, ctl, percept: Percept) -> int:
        front = self.merge_watch.front(ctl, percept)
        # Both watch the right at an intersection only (after its code): on the road, no call.
        if ctl.action is not None and (self.entry_watch.watches_right(ctl) or self.keep_behind.watches_right(ctl)):
            return max(front, percept.front_right)
        return front

    def stop_at(self, ctl) -> int:
        return self.close_up.stop_at(ctl)

    def marks_suppressed(self, ctl) -> bool:
        return self.make_way.suppress > 0 or self.code_tail.holds(ctl)

    def exit_frozen(self, ctl) -> bool:
        # The counts stand for distance: a robot queued in a siding behind one that delivers
        # would otherwise stop short of the location's barcode and read it on the road.
        return ctl.obstructed

    def after_drive(self, ctl, left: int, right: int) -> None:
        self.make_way.record(left, right)
        if self.merge_watch.count:
            self.merge_watch.count_down()

    def after_step(self, ctl, wheels: tuple[int, int]) -> None:
        self.row.tick(ctl.obstructed)
        self.merge_commit.after_step(ctl, wheels)

    def at_rest(self, ctl) -> bool:
        # The selector asks no reason of a quiet robot that makes no way, and the yield at an
        # entry answers None on the road (off a link's merge) without a change.
        return self.row.quiet() and not self.make_way.active() and not self.yield_at_entry.yielding \
            and not self.merge_watch.count

    def mode(self, ctl) -> Mode | None:
        if self.make_way.making_way is not None:
            return Mode.MAKING_WAY
        if self.make_way.holding is not None:
            return Mode.HOLDING
        if self.make_way.owed:
            return Mode.RETURNING
        if self.yield_at_entry.yielding:
            return Mode.YIELDING
        return None

    def on_intersection(self, ctl) -> None:
        self.yield_at_entry.on_intersection()

    def on_siding_entered(self, ctl) -> None:
        self.siding_clearance.released = False

    def on_link_entered(self, ctl) -> None:
        self.merge_watch.arm(on_link=True)

    def merge_committed(self, ctl) -> bool:
        return self.merge_commit.committed()

    def siding_stop(self, ctl, command: str, stop: bool) -> bool:
        return self.siding_clearance.siding_stop(command, stop)

    def siding_lane_advances(self, ctl) -> bool:
        return self.siding_distance.advances(ctl)

    def on_siding_lane_left(self, ctl) -> None:
        self.merge_watch.arm(on_link=False)

    def on_siding_hold(self, ctl) -> None:
        self.siding_clearance.released = False


#: traffic_rules → policy.
POLICIES = {'report': ReportPolicy, 'improved': ImprovedPolicy}
