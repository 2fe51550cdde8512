# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The road-driving controller of the report (§3, §4, §6, Appendix A), free of ROS.

It runs on each "prox" event (10 Hz) with the raw ground and horizontal proximity values and
returns integer motor targets, like the Aseba program. Integer arithmetic follows Aseba
(division truncates toward zero) so that the thresholds behave as on the robot.

The parts (docs/controller.md): the report's state machine (control/machine.py, with
line_following.py and reading.py), the recovery (recovery.py), the lights (light_obedience.py),
and a traffic policy (policies.py: the report's, or the improved rules of control/rules/). This
class runs them in one stated order per event and is the one API of the ROS node and the
embedded runtime: ``step``, ``on_comm``, ``tx_value``, ``role``, ``start``, ``stop``,
``drain_events``, ``state`` and ``mode``.
"""
from __future__ import annotations

from typing import Sequence

from thymio_road.control.aseba import adiv, clip
from thymio_road.control.events import Action, Event, INTERSECTION_CODES, Mode, State
from thymio_road.control.light_obedience import LIGHT_NEAR, LightObedience
from thymio_road.control.machine import ReportMachine
from thymio_road.control.params import ControllerParams
from thymio_road.control.percept import Percept
from thymio_road.control.policies import POLICIES
from thymio_road.control.reading import BIT_CM, EVENT_PERIOD, SPEED_CM_PER_UNIT
from thymio_road.control.recovery import CROSSED_DARK_WINDOW, Recovery
from thymio_road.control.right_of_way import RightOfWay, Role

#: RoadController._rest before it is asked whether the robot is at rest.
_ASK = object()

__all__ = ['Action', 'ControllerParams', 'Event', 'Mode', 'RoadController', 'State', 'adiv', 'led_colour',
           'INTERSECTION_CODES', 'LIGHT_NEAR', 'CROSSED_DARK_WINDOW', 'BIT_CM', 'EVENT_PERIOD',
           'SPEED_CM_PER_UNIT']


class RoadController(ReportMachine):
    """One robot's mind. Each event (:meth:`step`), in this order:

    1. the lights' tick: the timeout, the end of a siding's light lane; held by a light, stop
       (or back to hear a crossroad's light again);
    2. STOP: stand (delivering counts its stop);
    3. the policy's override: a rule that takes the wheels (making way, holding, yielding);
    4. the percept's front obstacle, and the policy's look at it (facing a light);
    5. the state's driving: CONTINUE's blind crossing, else line following with avoidance;
    6. a paused reading, the trigger test (READ, BACK off, or waiting at the trigger), BACK;
    7. ACTION's or EXIT's handler, then READ's counting (so the trigger event counts as 1);
    8. on a ring, the distance since its last mark: overdue, it has left the ring unawares;
    9. the policy after the drive and after the step; the mode, reported when it changes.

    A robot *at rest* (:meth:`_rest_params`: on the road between intersections, nothing held,
    counted, made way for or heard) whose readings are plain (nothing in front or behind, the
    reading sensor off black, the road not lost) would run through all of that only to follow
    the line: its next step is that alone (:meth:`_rest_step`), with the same result. Most steps
    of a run are such steps, and with hundreds of robots they cost most where they skip most:
    the objects they would visit are out of the CPU's caches (docs/performance.md).
    """

    #: Take rest steps (False: every step runs the whole pipeline; the result is the same).
    rest_steps = True

    def __init__(self, params: ControllerParams | None = None, state: State = State.ROAD) -> None:
        params = ControllerParams() if params is None else params
        super().__init__(params, state)
        self.policy = POLICIES[params.traffic_rules](params)
        self.lights = LightObedience(params, state)
        self.recovery = Recovery(params)
        #: Integer ids (traffic.node_ids) of the node the robot is in or last passed, and of the
        #: one before it (the node it came from); set by the node from the navigator.
        self.current_node: int | None = None
        self.previous_node: int | None = None
        #: The step's pause (a reading, or at a trigger), for the mode.
        self._pause: Mode | None = None
        self._uncalibrated = params.speed_factor == 1.0 and params.wheel_balance == 1.0
        self._priority = params.kind == 'priority'
        self.mode = self._current_mode()
        #: After the last step: the parameters of a rest step (_rest_params), None when not at
        #: rest, _ASK when not asked yet.
        self._rest: tuple[int, int, int, int] | object | None = None

    # --- the step ------------------------------------------------------------------------------------
    def step(self, ground: Sequence[int], prox: Sequence[int]) -> tuple[int, int]:
        """One "prox" event: returns (motor.left.target, motor.right.target)."""
        rest = self._rest
        if rest is not None and self.state is State.ROAD and self.action is None and not any(prox) and self.rest_steps:
            if rest is _ASK:
                rest = self._rest = self._rest_params()
            if rest is not None:
                grey_ref, grey_thresh, lost_threshold, gain = rest
                diff = int(ground[0]) - grey_ref
                if int(ground[1]) >= grey_thresh and abs(diff) <= lost_threshold:
                    return self._rest_step(diff, gain)
        self._last_obstructed, self.obstructed = self.obstructed, False
        self._pause = None
        wheels = self._step(ground, prox)
        self._watch_ring_marks(wheels)
        self.policy.after_step(self, wheels)
        self._note_mode()
        # Whether the robot is at rest now is asked by the next step if it is plain (the step
        # after a message heard, or with something in front, never asks: it costs 1 µs).
        self._rest = _ASK if self.rest_steps else None
        return wheels

    def _step(self, ground: Sequence[int], prox: Sequence[int]) -> tuple[int, int]:
        if self.lights.tick(self):
            return self._calibrated(*self.lights.held_wheels(max(prox[5], prox[6])))
        if self.state is State.STOP:
            if self.delivering:
                self._deliver(self.lights.increment_counter)
            return 0, 0
        percept = Percept(ground, prox)
        policy = self.policy
        wheels = policy.override(self, percept)
        if wheels is not None:
            return self._calibrated(*wheels)
        front_obstacle = self.params.avoidance != 'off' and percept.front > policy.front_limit(self)
        if front_obstacle:
            policy.on_front_obstacle(self, percept)
        follow, read = percept.follow, percept.read
        if read >= self.params.grey_thresh:
            self.on_code_tail = False
        self.recovery.note_crossing(self, follow)
        if self.state is State.CONTINUE:
            left, right = self._cross(percept)
        else:
            left, right = self._follow_line(percept)
        if front_obstacle and self.state is State.READ and policy.pauses_reading:
            # The reading is timed: it pauses, counts frozen, while a robot is in front.
            self.obstructed, self._pause = True, Mode.PAUSED_READING
            return 0, 0
        if self.state is State.ROAD and self._triggers(follow, read):
            if front_obstacle and policy.waits_at_trigger:
                # Wait at the trigger, the reading sensor on the first bit, until the robot in
                # front has moved on (it is reading the barcode, §6): backing up loops.
                self.obstructed, self._pause = True, Mode.WAITING_AT_TRIGGER
                return 0, 0
            if front_obstacle:
                self._back_off()
            else:
                self._start_read(follow, read)
        elif self.state is State.BACK:
            self._back()
        if self.state is State.ACTION:
            self._action(follow, read)
        elif self.state is State.EXIT:
            self._exit(follow, read)
        if self.state is State.READ:
            self._read(read)
        if left or right:
            policy.after_drive(self, left, right)
        return self._calibrated(left, right)

    def _rest_params(self) -> tuple[int, int, int, int] | None:
        """Whether the robot is at rest: (grey_ref, grey_thresh, lost_threshold, gain_road) if so,
        else None.

        At rest, a step with plain readings changes nothing of :meth:`_step`'s pipeline but what
        :meth:`_rest_step` does: the lights' tick finds nothing to count (LightObedience.at_rest,
        no siding's lane); the policy takes no wheels (ReportPolicy.at_rest); with every
        proximity reading 0 no threshold is passed (they are all >= 0, params.py); the reading
        sensor off black (>= grey_thresh) neither triggers nor ends a code's tail (none here);
        the blind-crossing count has run out and no spin or U-turn is under way
        (Recovery.at_rest); off an intersection the ring's distance stays 0; the mode stays
        DRIVING; nothing obstructed or paused it. Anything that may change that from outside a
        step (a message heard, a button, a light's hold, a making of way started) calls :meth:`wake`.
        """
        if (self.state is State.ROAD and self.action is None and self.light_lane is None and not self.delivering
                and not self.on_code_tail and not self.obstructed and not self._last_obstructed
                and self._pause is None and self.mode is Mode.DRIVING and self.lights.at_rest()
                and self.recovery.at_rest() and self.policy.at_rest(self)):
            p = self.params
            return p.grey_ref, p.grey_thresh, p.lost_threshold, p.gain_road
        return None

    def _rest_step(self, diff: int, gain: int) -> tuple[int, int]:
        """The step of a robot at rest with plain readings: the line following of _follow_line
        (with the wrong-way window of recovery 'both', which may turn the robot round), then the
        policy's after_drive and after_step, as :meth:`step` runs them.
        """
        recovery = self.recovery
        turning = recovery.turning(self, diff) if recovery.both else None
        if turning is None:
            speed = self.speed
            left, right = clip(speed + adiv(diff, gain)), clip(speed + adiv(-diff, gain))
        else:
            left, right = turning
        policy = self.policy
        if left or right:
            policy.after_drive(self, left, right)
        wheels = self._calibrated(left, right)
        self.since_mark_cm = 0.0
        policy.after_step(self, wheels)
        if turning is not None:  # a wrong way: turning round, a mode of its own
            self._rest = None
            self._note_mode()
        return wheels

    def _watch_ring_marks(self, wheels: tuple[int, int]) -> None:
        """On a ring past its first mark, the distance since the last mark; overdue, the robot has
        left the ring without knowing it, and drives on as on a road.

        A ring robot knows where it is only by the marks it counts, and a count that is off (a
        blind crossing cut short by making way) lets line following carry it out by an exit while
        it still counts marks, reading the barcodes of the road it is on as marks and acting on
        them (docs/traffic_log.md, session 15). Not before the first mark: the entry code may
        stand far up the lead-in.
        """
        if self.action is not Action.ROUNDABOUT or self.state not in (State.ACTION, State.CONTINUE) \
                or self.counter_continue == 0 and self.state is State.ACTION:
            self.since_mark_cm = 0.0
            return
        self.since_mark_cm += (wheels[0] + wheels[1]) / 2 * SPEED_CM_PER_UNIT * EVENT_PERIOD
        if self.since_mark_cm > self.mark_overdue_cm():
            self.events.append(Event('left_unawares', {'action': 'roundabout', 'marks': self.counter_continue,
                                                       'driven_m': round(self.since_mark_cm / 100, 2)}))
            self.since_mark_cm = 0.0
            self._leave_intersection()

    def _calibrated(self, left: int, right: int) -> tuple[int, int]:
        """The robot's speed calibration (§10) and wheel balance on the motor commands."""
        if self._uncalibrated:
            return left, right
        f, b = self.params.speed_factor, self.params.wheel_balance
        return clip(round(left * f * b)), clip(round(right * f))

    def marks_suppressed(self) -> bool:
        """No trigger while turning round, or over road already read before making way."""
        return self.recovery.uturn > 0 or self.policy.marks_suppressed(self)

    # --- modes ---------------------------------------------------------------------------------------
    def _current_mode(self) -> Mode:
        if self.state is State.STOP:
            if self.delivering:
                return Mode.DELIVERING
            return Mode.HELD_BY_LIGHT if self.lights.stopped else Mode.STOPPED
        mode = self._pause or (self.policy.mode(self) if self.policy.has_modes else None)
        if mode is not None:
            return mode
        if self.recovery.uturn:
            return Mode.UTURN
        return Mode.SPIN_LEFT if self.recovery.spin_left else Mode.DRIVING

    def _note_mode(self) -> None:
        mode = self._current_mode()
        if mode is not self.mode:
            self.events.append(Event('mode', {'from': self.mode.value, 'to': mode.value}))
            self.mode = mode

    # --- buttons and events ------------------------------------------------------------------------
    def stop(self) -> None:
        """The centre button: stop whatever the state (§3, STOP)."""
        self.wake()
        self._set_state(State.STOP)
        self._note_mode()

    def start(self) -> None:
        """The forward button: drive on the road again."""
        self.wake()
        self.lights.release()
        self._set_state(State.ROAD)
        self._note_mode()

    def drain_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    # --- IR: the right of way and the lights -------------------------------------------------------
    def on_comm(self, code: int, intensities: Sequence[int] | None = None) -> None:
        """A value received by IR (prox.comm.rx, with the 7 sensors' intensities when known):
        another robot's message goes to the traffic policy, a light's code to the lights.
        """
        self.wake()
        if not self.policy.hear(self, code, intensities):
            self.lights.hear(self, code, intensities)

    def role(self) -> Role:
        """The rank of the lane the robot is on, as it announces it."""
        if self._priority:
            return Role.PRIORITY
        if self.state is State.CONTINUE:
            return Role.INSIDE  # crossing blind: the one most in the way and least able to help it
        if self.action is None:  # on the road (asked twice a step: the shortest way first)
            return Role.ENTERING if self.light_lane == 'siding' or self.delivering else Role.ROAD
        if self.action is Action.ROUNDABOUT and self.counter_continue == 0 and self.state is State.ACTION:
            return Role.ENTERING
        if self.light_lane == 'siding' or self.delivering or (self.action is Action.LOCATION
                                                              and self.state is State.EXIT):
            return Role.ENTERING  # leaving a location's siding: the road has the right of way
        if self.action is not None and (self.counter_continue >= 1 or self.action is Action.ROUNDABOUT):
            return Role.INSIDE  # past its first mark (on the ring, passing a merge), or leaving the ring
        return Role.ROAD

    def tx_value(self) -> int:
        """What the robot sends by IR this period (0: nothing; only with the improved rules)."""
        return self.policy.tx(self)

    def light_context(self) -> tuple[str, int | None] | None:
        """The lane a light may command now, with the node id that addresses it, or None."""
        return self.lights.context(self)

    @property
    def stopped_by_light(self) -> bool:
        return self.lights.stopped

    @stopped_by_light.setter
    def stopped_by_light(self, value: bool) -> None:
        self.wake()
        self.lights.stopped = value

    @property
    def increment_counter(self) -> int:
        return self.lights.increment_counter

    @property
    def right_of_way(self) -> RightOfWay | None:
        """What the robot hears of the others (None with the report's rules)."""
        return getattr(self.policy, 'row', None)


#: Top LED colour per state (Appendix A), RGB in 0..32 as Aseba's leds.top.
def led_colour(controller: RoadController) -> tuple[int, int, int]:
    p = controller.params
    state = controller.state
    if state is State.ROAD:
        level = 3 - adiv(controller.speed - p.speed_low, p.speed_low)
        return 32, max(0, min(32, level * 8)), 0
    if state is State.READ:
        return 32, 32, 32
    if state is State.STOP:
        return 0, 0, 0
    if state is State.BACK:
        return 32, 0, 32
    # At intersections: leds.top(0, 10·actionType, 10·(3 − actionType)) (Appendix A).
    kind = int(controller.action) if controller.action is not None else 0
    return 0, min(32, 10 * kind), max(0, 10 * (3 - kind))
