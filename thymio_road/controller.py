"""The road-driving controller of the report (§3, §4, §6, Appendix A), free of ROS.

It runs on each "prox" event (10 Hz) with the raw ground and horizontal proximity values and
returns integer motor targets, like the Aseba program. Integer arithmetic follows Aseba
(division truncates toward zero) so that the thresholds behave as on the robot.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Sequence


class State(enum.Enum):
    """The report's state machine (§3, Fig. 2)."""

    ROAD = 1
    READ = 2
    ACTION = 3
    CONTINUE = 4
    EXIT = 5
    BACK = 6
    STOP = 7


def adiv(a: int, b: int) -> int:
    """Aseba's integer division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclass(frozen=True)
class ControllerParams:
    """Constants of Appendix A and Table 5; `grey_ref` is each robot's calibration (§10)."""

    grey_ref: int = 500
    speed_low: int = 150
    speed_med: int = 260
    speed_high: int = 410
    #: Initial road speed (Aseba units).
    speed: int = 150
    #: Proportional gains as dividing factors per state (§4): ROAD/BACK 3, READ 6, ACTION/EXIT 2.
    gain_road: int = 3
    gain_read: int = 6
    gain_action: int = 2
    #: Spin in place when |ground - GREY_REF| exceeds this (road lost).
    lost_threshold: int = 300
    spin_divisor: int = 4
    obs_threshold: int = 1000
    obs_threshold_max: int = 3000
    #: 'v2' slows down in proportion then stops (§6, Fig. 10); 'v1' stops; 'off' ignores obstacles.
    avoidance: str = 'v2'

    def __post_init__(self) -> None:
        if self.avoidance not in ('v1', 'v2', 'off'):
            raise ValueError(f"avoidance must be 'v1', 'v2' or 'off', got {self.avoidance!r}")
        for name in ('speed_low', 'speed_med', 'speed_high'):
            if not 0 < getattr(self, name) <= 500:
                raise ValueError(f'{name} must be in 1..500 motor units, got {getattr(self, name)}')
        if not -500 <= self.speed <= 500:
            raise ValueError(f'speed must be in -500..500 motor units, got {self.speed}')
        if not 0 < self.grey_ref < 1023:
            raise ValueError(f'grey_ref must be in 1..1022, got {self.grey_ref}')


@dataclass(frozen=True)
class Event:
    """Something worth recording: a state change, a barcode read, a decision."""

    kind: str
    data: dict


@dataclass
class RoadController:
    params: ControllerParams = field(default_factory=ControllerParams)
    state: State = State.ROAD

    def __post_init__(self) -> None:
        self.speed = self.params.speed
        self.events: list[Event] = []
        self.counter = 0

    # --- interface ------------------------------------------------------------------------------
    def step(self, ground: Sequence[int], prox: Sequence[int]) -> tuple[int, int]:
        """One "prox" event: returns (motor.left.target, motor.right.target)."""
        if self.state is State.STOP:
            return 0, 0
        return self._follow_line(int(ground[0]), [int(v) for v in prox])

    def stop(self) -> None:
        """The centre button: stop whatever the state (§3, STOP)."""
        self._set_state(State.STOP)

    def start(self) -> None:
        """The forward button: drive on the road again."""
        self._set_state(State.ROAD)

    def drain_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    # --- behaviour ------------------------------------------------------------------------------
    def _set_state(self, state: State) -> None:
        if state is not self.state:
            self.events.append(Event('state', {'from': self.state.name, 'to': state.name}))
            self.state = state

    def _gain(self) -> int:
        p = self.params
        if self.state in (State.ROAD, State.BACK):
            return p.gain_road
        if self.state is State.READ:
            return p.gain_read
        return p.gain_action

    def _follow_line(self, ground_left: int, prox: list[int]) -> tuple[int, int]:
        """P line following on the left ground sensor with collision avoidance (Appendix A)."""
        p = self.params
        diff = ground_left - p.grey_ref
        k = self._gain()
        add_left, add_right = adiv(diff, k), adiv(-diff, k)
        left, right = self.speed + add_left, self.speed + add_right
        front = max(prox[1], prox[2], prox[3])
        if (p.avoidance != 'off' and front > p.obs_threshold
                and self.state in (State.ROAD, State.ACTION, State.EXIT)):
            if p.avoidance == 'v2':
                # Slow down in proportion to the obstacle and to the nominal speed (§6, Fig. 10).
                excess = front - p.obs_threshold
                slow = adiv(excess, adiv(75, 1 + adiv(self.speed, p.speed_low)))
                left, right = left - slow, right - slow
            if p.avoidance == 'v1' or front > p.obs_threshold_max:
                left, right = 0, 0
        elif self.state is State.BACK and max(prox[5], prox[6]) > p.obs_threshold_max:
            left, right = 0, 0
        if abs(diff) > p.lost_threshold:
            # Road lost: spin on the spot. It finds the road again only from the white side (§4).
            left, right = adiv(diff, p.spin_divisor), adiv(-diff, p.spin_divisor)
        return _clip(left), _clip(right)


def _clip(u: int) -> int:
    return max(-500, min(500, u))


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
    return 0, 10, 20
