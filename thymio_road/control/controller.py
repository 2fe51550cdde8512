"""The road-driving controller of the report (§3, §4, §6, Appendix A), free of ROS.

It runs on each "prox" event (10 Hz) with the raw ground and horizontal proximity values and
returns integer motor targets, like the Aseba program. Integer arithmetic follows Aseba
(division truncates toward zero) so that the thresholds behave as on the robot.
"""
from __future__ import annotations

import enum
import math
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Sequence

from thymio_road.control.right_of_way import MAX_ID, RightOfWay, Role
from thymio_road.map.barcode import BIT_LENGTH, BLACK_MARGIN_CM, decode_matched

#: Report eq. (1), the barcode bit (§5) and the event period, for the matched reading.
SPEED_CM_PER_UNIT = 0.032
BIT_CM = BIT_LENGTH * 100
EVENT_PERIOD = 0.1
#: Events (0.1 s) after the last light code heard during which the robot counts as near a light
#: (the lights send every 0.1 s): there, a robot blocked long gives up its way later.
LIGHT_NEAR = 20
#: Events after a location's blind crossing during which a road lost on white, when the crossing
#: took the follow sensor over black, is found by spinning left (recovery 'both', _spin).
CROSSED_DARK_WINDOW = 30
#: How many makings of way the forward commands kept for backing cover (each backs
#: `make_way_count` of them).
TRAIL_MAKE_WAYS = 4


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
    #: GREY_THRESH: a right ground sensor value below it is a black bit (Appendix A).
    grey_thresh: int = 400
    #: The security against reading the road's black side: no trigger unless the follow sensor
    #: reads below GREY_REF + white_margin (the report's white_threshold, §5 and §9).
    white_margin: int = 200
    #: 'report': the security above; 'strict': also require the trigger reading to be as dark
    #: as printed black under the sensor (below black_ratio · GREY_REF) and the follow sensor
    #: near its reference — see docs/barcodes.md for why this removes the right-turn triggers.
    trigger_security: str = 'report'
    black_ratio: float = 0.3
    #: 'report': one sample per bit at counts 1 + ((2k+1)·interval − 1)/2 in integer arithmetic,
    #: as in Appendix A; 'matched': a sample at every event, decoded as the code that explains
    #: them best for the speed's distance per event (eq. 1) — see docs/barcodes.md.
    read_method: str = 'report'
    #: Act on the codes read (speed changes, intersections); off for reading experiments.
    barcode_actions: bool = True
    #: The robot's speed calibration (report §10): motor commands are multiplied by it so that
    #: this robot drives at the reference robot's speed ("command × counts = constant").
    speed_factor: float = 1.0
    #: The left wheel's command is multiplied by it so that both wheels turn alike (measured by
    #: `thymio-road calibrate` from the line-following correction on a straight strip).
    wheel_balance: float = 1.0
    #: Intersection counters in 0.1 s counts (report §7), compared as in Appendix A
    #: (`counter > limit`): CONTINUE drives blind until it passes `crossing`; EXIT follows the
    #: line until `exit_count` (roundabout, branching: "42 counts" is `counter > 41`) before
    #: ROAD; in a location the robot stops after `location_count` for `stop_count` (2 s).
    crossing: int = 21
    exit_count: int = 41
    #: The crossroad's EXIT (right turn, or the left turn in the central circle): `counter > 29`.
    crossroad_exit_count: int = 29
    #: BACK lasts 1.2 s: the time the robot on the barcode needs to finish reading it (§6).
    back_count: int = 12
    #: CONTINUE's left wheel, in % of the speed, per intersection kind: the report's
    #: (85 + 3·actionType) % (§9) by default; tuned to a map's geometry when needed.
    bias_branching: int = 85
    bias_roundabout: int = 88
    bias_crossroad: int = 91
    bias_location: int = 94
    #: Leaving the crossroad's circle after a left turn (our addition, docs/intersections.md):
    #: a robot that has followed the 10.8 cm circle heads about 42° inside its tangent, because
    #: its sensors lead its wheels by 7.2 cm, so its last two crossings turn left more.
    bias_crossroad_left: int = 91
    location_count: int = 130
    stop_count: int = 20
    #: Traffic lights (docs/traffic.md): act on the codes received by IR (Appendix A's allStop /
    #: allStart). `light_timeout`: counts stopped by a light without hearing it before driving on
    #: anyway (0: wait for the go, as the report's robots did). `light_siding_count`: counts of
    #: driving after the stop in a location during which the robot still obeys the location's
    #: light as a robot leaving the siding: 40 counts at the lowest speed are 19 cm, from the
    #: stop (41 cm before the merge) to 22 cm before it, where the lanes come closer than a
    #: Thymio's width (counted in ROAD only, they end 13.8-25.5 cm before it, median 14.8, in
    #: 10 robots seed 2). From there it has started merging and, like a robot crossing, ignores
    #: the light (docs/traffic.md).
    obey_lights: bool = True
    light_timeout: int = 0
    light_siding_count: int = 40
    #: Improved rules: how far past a location's siding entry a robot on the road obeys the
    #: location's light, in events at the lowest speed (its wheel commands are summed, so a robot
    #: slowed behind another counts less). Past it (22 + 112 events at the lowest speed are 64 cm:
    #: 31 cm before the merge with the shipped 0.5 m parallel, where the robot starts to hear the
    #: light 36 cm before it) it has committed and drives through a red:
    #: stopped closer, it stood beside the start of the siding's exit curve (27 cm before the
    #: merge), in the way of the robot the light let out next (docs/traffic.md).
    light_road_count: int = 112
    #: Seed of the random decisions at intersections ("call math.rand", Appendix A).
    seed: int = 0
    #: 'report': the road lost, the robot spins with the sign of the reading, so that from the
    #: black side it finds the road backwards (§4). 'both': it also recognises the wrong-way
    #: drive this leads to and turns round on the spot (`uturn_count` events: 180° at the lowest
    #: speed, π·9.4 cm / 2 / 4.8 cm/s ≈ 3.1 s). A robot driving backwards follows the lane's
    #: sharp outer edge, and there the follow reading jumps between white and black from one
    #: event to the next, where on the gradient it changes smoothly: over the last
    #: `wrong_way_window` events in ROAD, the mean change between successive readings exceeds
    #: `wrong_way_jitter` (wrong-way drives in the recovery experiment: median 223, 90 % above
    #: 47; the most any robot showed in two traffic runs of 10 and 15 robots: 78).
    recovery: str = 'report'
    wrong_way_window: int = 40
    wrong_way_jitter: int = 150
    uturn_count: int = 31
    #: 'report': robots know each other only by their proximity sensors, as in the report (its
    #: jams reproduce). 'improved': the right of way by IR of control/right_of_way.py (yield at
    #: roundabout entries, make way when blocking a robot of higher priority), and a robot that
    #: finds a robot on a barcode waits at the trigger, and pauses its reading, instead of
    #: backing up (BACK looped 217 times into the queue behind in a 10-robot run; issue #13).
    traffic_rules: str = 'report'
    #: The id a robot announces by IR (1..63; 0: none, only with the report's rules).
    robot_id: int = 0
    #: 'car', or 'priority' (an ambulance, report §8, §11): announced with the highest role.
    kind: str = 'car'
    #: Right-of-way counts (0.1 s): standing still behind an obstacle this long, the robot says
    #: whom it is blocked by; making way backs up this long, then waits at least `make_way_hold`
    #: and while the other still says it is blocked (at most `make_way_hold_max`); a robot
    #: blocked `give_up_count` without help makes way itself; an entering robot yields at most
    #: `yield_max`.
    blocked_count: int = 20
    make_way_count: int = 30
    make_way_hold: int = 20
    make_way_hold_max: int = 100
    give_up_count: int = 300
    #: A robot waits `give_up_stagger` events more per rank of its role, and 2 more per rank of
    #: its id, before it gives up (priority order: the lower robot gives up first; 0: all wait
    #: `give_up_count`). Two robots that block each other without hearing each other's "blocked
    #: by" gave up at the same event and backed, held and came back together into contact (15
    #: robots seed 4 at R2's north-east entry: a ring robot and an entering one, 30 s blocked,
    #: 10 s held).
    give_up_stagger: int = 50
    yield_max: int = 150
    #: Crossing blind on a roundabout's ring or in the crossroad, a robot stopped by one it
    #: cannot hear at its front right only (one that pushed in: the priority vehicle, or a robot
    #: entering the ring that did not hear the ring robot) makes way after this long instead
    #: of `give_up_count`: driving on brings it closer (see _blocked_crossing).
    crossing_give_up_count: int = 50
    #: Improved: a reading, or a blind crossing of a location's mark, stopped this long by
    #: something in front that is no robot it hears, with a traffic light heard in the last
    #: LIGHT_NEAR events, is abandoned: the robot faces the light (a Thymio that never moves),
    #: and only following the line turns it away (see _facing_light).
    facing_light_count: int = 20
    #: Improved: events of driving after leaving a branching by its link, or after a siding's
    #: light lane ends (light_siding_count), during which the front-left sensor counts as a
    #: front one, as in the siding's light lane: the link or the siding joins the other road
    #: from its right, and a robot passing there is seen on that sensor only (15 robots seed 4
    #: at B1: 1400 rising to 4500 over 2 s, then their hulls met). 60 events at the lowest speed
    #: are 29 cm: from the end of EXIT, or 22 cm before a location's merge, past the merge.
    link_merge_count: int = 60
    #: Improved: a priority vehicle stops for a robot it hears in front only beyond this front
    #: reading (about 15 cm centre to centre, against 17 cm at `obs_threshold_max`): with the
    #: enki_doc channel a robot's rear receivers hear the front emitters of one behind it only
    #: up to 15.5 cm, while its own rear emitters reach 20 cm and more. Stopped at 17 cm, the
    #: ambulance heard the robot held by a light in front of it, but that robot never heard the
    #: ambulance and did not drive on for it (36 s in L4's siding, priority seed 3). A robot in
    #: a queue at a light with the ambulance behind closes up as much, to pass the news on.
    priority_close_threshold: int = 3700

    def __post_init__(self) -> None:
        if self.avoidance not in ('v1', 'v2', 'off'):
            raise ValueError(f"avoidance must be 'v1', 'v2' or 'off', got {self.avoidance!r}")
        if self.read_method not in ('report', 'matched'):
            raise ValueError(f"read_method must be 'report' or 'matched', got {self.read_method!r}")
        if self.trigger_security not in ('report', 'strict'):
            raise ValueError(f"trigger_security must be 'report' or 'strict', got {self.trigger_security!r}")
        if not 0 < self.grey_thresh < 1023:
            raise ValueError(f'grey_thresh must be in 1..1022, got {self.grey_thresh}')
        for name in ('bias_branching', 'bias_roundabout', 'bias_crossroad', 'bias_crossroad_left', 'bias_location'):
            if not 50 <= getattr(self, name) <= 100:
                raise ValueError(f'{name} must be in 50..100 %, got {getattr(self, name)}')
        if not 0 <= self.light_timeout <= 100000:
            raise ValueError(f'light_timeout must be in 0..100000 counts, got {self.light_timeout}')
        for name in ('crossing', 'exit_count', 'crossroad_exit_count', 'location_count', 'stop_count', 'back_count',
                     'light_siding_count', 'light_road_count'):
            if not 1 <= getattr(self, name) <= 1000:
                raise ValueError(f'{name} must be in 1..1000 counts, got {getattr(self, name)}')
        if not 0.8 <= self.wheel_balance <= 1.25:
            raise ValueError(f'wheel_balance must be in [0.8, 1.25], got {self.wheel_balance}')
        if not 0.5 <= self.speed_factor <= 2.0:
            raise ValueError(f'speed_factor must be in [0.5, 2], got {self.speed_factor}')
        if not 0 < self.black_ratio < 1:
            raise ValueError(f'black_ratio must be in (0, 1), got {self.black_ratio}')
        for name in ('speed_low', 'speed_med', 'speed_high'):
            if not 0 < getattr(self, name) <= 500:
                raise ValueError(f'{name} must be in 1..500 motor units, got {getattr(self, name)}')
        if not -500 <= self.speed <= 500:
            raise ValueError(f'speed must be in -500..500 motor units, got {self.speed}')
        if not 0 < self.grey_ref < 1023:
            raise ValueError(f'grey_ref must be in 1..1022, got {self.grey_ref}')
        if self.recovery not in ('report', 'both'):
            raise ValueError(f"recovery must be 'report' or 'both', got {self.recovery!r}")
        if not 2 <= self.wrong_way_window <= 1000:
            raise ValueError(f'wrong_way_window must be in 2..1000 events, got {self.wrong_way_window}')
        if not 1 <= self.wrong_way_jitter <= 1000:
            raise ValueError(f'wrong_way_jitter must be in 1..1000, got {self.wrong_way_jitter}')
        if not 1 <= self.uturn_count <= 1000:
            raise ValueError(f'uturn_count must be in 1..1000 counts, got {self.uturn_count}')
        if self.traffic_rules not in ('report', 'improved'):
            raise ValueError(f"traffic_rules must be 'report' or 'improved', got {self.traffic_rules!r}")
        if self.kind not in ('car', 'priority'):
            raise ValueError(f"kind must be 'car' or 'priority', got {self.kind!r}")
        if not 0 <= self.robot_id <= MAX_ID:
            raise ValueError(f'robot_id must be in 0..{MAX_ID}, got {self.robot_id}')
        if self.traffic_rules == 'improved' and self.robot_id == 0:
            raise ValueError("traffic_rules 'improved' needs a robot_id in 1..63 (the id it announces by IR)")
        for name in ('blocked_count', 'make_way_count', 'make_way_hold', 'make_way_hold_max', 'give_up_count',
                     'yield_max', 'crossing_give_up_count', 'facing_light_count', 'link_merge_count'):
            if not 1 <= getattr(self, name) <= 10000:
                raise ValueError(f'{name} must be in 1..10000 counts, got {getattr(self, name)}')
        if not 0 <= self.priority_close_threshold <= 10000:
            raise ValueError(f'priority_close_threshold must be in 0..10000, got {self.priority_close_threshold}')
        if not 0 <= self.give_up_stagger <= 10000:
            raise ValueError(f'give_up_stagger must be in 0..10000 counts, got {self.give_up_stagger}')


class Action(enum.IntEnum):
    """actionType of Appendix A: the kind of intersection, which also sets CONTINUE's bias."""

    BRANCHING = 0
    ROUNDABOUT = 1
    CROSSROAD = 2
    LOCATION = 3


#: Table 6: codes on the road that announce an intersection.
INTERSECTION_CODES = {4: Action.BRANCHING, 5: Action.CROSSROAD, 6: Action.LOCATION, 7: Action.ROUNDABOUT}


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
        self.old_state = self.state
        self.counter_read = 0
        self.code = 0
        self.samples: list[int] = []
        # Intersections (report §7).
        self.action: Action | None = None
        self.saved_speed = self.speed
        self.counter_continue = 0
        self.read_location = False
        self.delivering = False
        self.location: int | None = None
        self.rng = random.Random(self.params.seed)
        #: Decides 'exit' or 'continue' at a mark: (action, marks passed) → choice. Random by
        #: default, as in the report; a route follower replaces it.
        self.decide: Callable[[Action, int], str] = self._random_choice
        #: Picks 'right', 'straight' or 'left' when a crossroad is announced.
        self.choose_direction: Callable[[], str] = lambda: self.rng.choice(('right', 'straight', 'left'))
        self.direction = ''
        self.turned_left = False
        # Traffic lights (Appendix A: allStop / allStart, incrementCounter); see on_comm.
        self.stopped_by_light = False
        self.light_old_state = self.state
        #: Appendix A's incrementCounter: 0 freezes the stop in a location while the light says so.
        self.increment_counter = 1
        #: Integer ids (traffic.node_ids) of the node the robot is in or last passed, and of the
        #: one before it (the node it came from); set by the node from the navigator.
        self.current_node: int | None = None
        self.previous_node: int | None = None
        #: 'siding' from the exit into a location's siding until it has driven out of it.
        self.light_lane: str | None = None
        self.light_lane_count = 0
        #: Improved rules: the siding's go heard since the robot left the location's stop (the
        #: all red that follows is the light's clearance for it: it drives on through it).
        self._siding_released = False
        self._light_stopped_lane: tuple[str, int | None] | None = None
        self._light_quiet = 0
        #: Events since the robot last heard any traffic light's code (see LIGHT_NEAR).
        self._since_light = LIGHT_NEAR + 1
        # Right of way (traffic_rules 'improved'; control/right_of_way.py).
        self.improved = self.params.traffic_rules == 'improved'
        self.right_of_way = RightOfWay(self.params.robot_id, self.params.blocked_count) if self.improved else None
        self.obstructed = False
        self._last_obstructed = False
        self._merge_travel = 0
        #: Steps since it started making way (None: not making way), then since it stopped.
        self._making_way: int | None = None
        self._holding: int | None = None
        #: Making way, something close behind stops it from backing (it asks that robot to back).
        self._backing_blocked = False
        self._yielded = 0
        #: The last wheel commands driven forward, replayed backwards to make way (line following
        #: backwards is unstable: the sensors lead the wheels), and the distance backed (motor
        #: units per event, summed) that the robot drives forward again without reading marks
        #: or codes it already counted. Counted in steps, the reading of a robot that backed a
        #: queue's crawl and came back at full speed woke up in the middle of X1's code, and read
        #: it as a branching's (10 robots seed 7). Each making of way backs the last
        #: `make_way_count` of them and leaves the older ones, so that a robot asked again
        #: backs further: one that had backed its trail once and crept forward could not back
        #: at all when a ring robot asked it again, and the ring robot stood 115 s (15 robots
        #: seed 1 at R2's south-east entry, made way six times in 60 s).
        self._trail: deque[tuple[int, int]] = deque(maxlen=TRAIL_MAKE_WAYS * self.params.make_way_count)
        self._retrace: list[tuple[int, int]] = []
        self._suppress = 0
        #: Driving events left in a branching link's merge (link_merge_count), and whether they
        #: are a branching's (whose two links cross each other) rather than a siding's.
        self._link_merge = 0
        self._on_link = False
        # Recovery from both sides (recovery 'both'): the changes between successive follow
        # readings in ROAD (and their sum), the last reading, the U-turn under way.
        self._follow_steps: deque[int] = deque(maxlen=self.params.wrong_way_window - 1)
        self._steps_sum = 0
        self._last_diff: int | None = None
        self._uturn = 0
        #: A location's blind crossing took the follow sensor over the road's black (recovery
        #: 'both'), events since that crossing ended, and a left spin under way (see _spin).
        self._crossed_dark = False
        self._since_crossing = CROSSED_DARK_WINDOW + 1
        self._spin_left = False

    # --- interface ------------------------------------------------------------------------------
    def step(self, ground: Sequence[int], prox: Sequence[int]) -> tuple[int, int]:
        """One "prox" event: returns (motor.left.target, motor.right.target)."""
        self._last_obstructed, self.obstructed = self.obstructed, False
        wheels = self._step(ground, prox)
        if self.right_of_way is not None:
            self.right_of_way.tick(self.obstructed)
            if self.action is Action.LOCATION and self.counter_continue == 1 and self.state is not State.STOP:
                # The distance driven past the siding's entry, in motor units per event: a robot
                # slowed behind another must not commit before it is near the merge.
                self._merge_travel += max(0, (wheels[0] + wheels[1]) // 2)
            else:
                self._merge_travel = 0
        return wheels

    def _step(self, ground: Sequence[int], prox: Sequence[int]) -> tuple[int, int]:
        """The order is Appendix A's: line following with the current state's gain, then the
        trigger test, then the READ counting (which therefore counts the trigger event as 1)."""
        if self._light_tick():
            return 0, 0
        if self.state is State.STOP:
            if self.delivering:
                self._deliver()
            return 0, 0
        follow, read = int(ground[0]), int(ground[1])
        prox = [int(v) for v in prox]
        if self.improved:
            wheels = self._right_of_way_step(follow, prox)
            if wheels is not None:
                return self._calibrated(*wheels)
        front_obstacle = self.params.avoidance != 'off' and max(prox[1], prox[2], prox[3]) > self._front_limit()
        if self.improved and front_obstacle and self._facing_light():
            if self.state is State.READ:
                self._abandon_reading()
            elif self.state is State.CONTINUE and self.action is Action.LOCATION:
                self._abandon_crossing()
        self._note_crossing(follow)
        if self.state is State.CONTINUE:
            left, right = self._cross(prox)
        else:
            left, right = self._follow_line(follow, prox)
        if self.improved and front_obstacle and self.state is State.READ:
            # The reading is timed: it pauses, counts frozen, while a robot is in front.
            self.obstructed = True
            return 0, 0
        if self.state is State.ROAD and self._triggers(follow, read):
            if front_obstacle and self.improved:
                # Wait at the trigger, the reading sensor on the first bit, until the robot in
                # front has moved on (it is reading the barcode, §6): backing up loops.
                self.obstructed = True
                return 0, 0
            if front_obstacle:
                self._back_off()
            else:
                self._start_read(follow, read)
        elif self.state is State.BACK:
            self.counter += 1
            if self.counter >= self.params.back_count:
                # "I always assigned the slowest speed possible when starting moving forwards again" (§6)
                self.speed = self.params.speed_low
                self._set_state(State.ROAD)
        if self.state is State.ACTION:
            self._action(follow, read)
        elif self.state is State.EXIT:
            self._exit(follow, read)
        if self.state is State.READ:
            self._read(read)
        if self.improved and (left or right):
            self._trail.append((left, right))
            self._suppress = max(0, self._suppress - max(0, (left + right) // 2))
            self._link_merge = max(0, self._link_merge - 1)
        return self._calibrated(left, right)

    def _calibrated(self, left: int, right: int) -> tuple[int, int]:
        f, b = self.params.speed_factor, self.params.wheel_balance
        if f == 1.0 and b == 1.0:
            return left, right
        return _clip(round(left * f * b)), _clip(round(right * f))

    def stop(self) -> None:
        """The centre button: stop whatever the state (§3, STOP)."""
        self._set_state(State.STOP)

    def start(self) -> None:
        """The forward button: drive on the road again."""
        self.stopped_by_light = False
        self._light_stopped_lane = None
        self._set_state(State.ROAD)

    def drain_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    # --- behaviour ------------------------------------------------------------------------------
    def _set_state(self, state: State) -> None:
        if state is not self.state:
            self.events.append(Event('state', {'from': self.state.name, 'to': state.name}))
            self.state = state

    # --- barcodes (report §5, Appendix A) --------------------------------------------------------
    @property
    def interval(self) -> int:
        """Events per bit: interval = 2·SPEED_HIGH / speed (eq. 2), integer as on the robot."""
        return adiv(2 * self.params.speed_high, max(abs(self.speed), 1))

    @property
    def step_cm(self) -> float:
        """Distance travelled per event at the current speed, by eq. (1)."""
        return max(abs(self.speed), 1) * SPEED_CM_PER_UNIT * EVENT_PERIOD

    def read_schedule(self) -> tuple[int, int, int, int]:
        """READ counts (the trigger event is 1) of the three samples and of the end (Appendix A)."""
        i = self.interval
        return tuple(1 + adiv((2 * k + 1) * i - 1, 2) for k in (1, 2, 3, 4))  # type: ignore[return-value]

    def _matched_end(self) -> int:
        """Count at which a matched read has seen the whole barcode (and left its last bit)."""
        return 1 + math.ceil((4 * BIT_CM + BLACK_MARGIN_CM) / self.step_cm)

    def _triggers(self, follow: int, read: int, marks: str = '') -> bool:
        """A black bit under the reading sensor, with the report's security. The strict security
        is not applied to the crossroad's marks (`marks='crossroad'`): on its 10.8 cm circle the
        follow sensor rides well on the dark side of the grey reference, which is how the P
        controller turns that tightly. At a location's marks (`marks='location'`) it asks only
        for printed black: on the straight road no false trigger has been seen, and the line
        following, swinging after a light's hold (follow 603, 395, 600, 381 from one event to
        the next), missed L2's merge mark (15 robots seed 6); the robot then drove on in the
        location's lane, took L3's barcode for that mark and followed L3's siding as the road."""
        p = self.params
        if read >= p.grey_thresh or follow >= p.grey_ref + p.white_margin or self._suppress or self._uturn:
            return False
        if p.trigger_security == 'strict' and marks != 'crossroad':
            dark = read < p.black_ratio * p.grey_ref
            return dark if marks == 'location' else dark and abs(follow - p.grey_ref) < p.white_margin // 2
        return True

    def _back_off(self) -> None:
        """Another robot is on the barcode at the trigger: back up at the lowest speed for 1.2 s (§6)."""
        self.events.append(Event('back', {'speed': self.speed}))
        self.counter = 0
        self.speed = -self.params.speed_low
        self._set_state(State.BACK)

    def _start_read(self, follow: int, read: int) -> None:
        self.events.append(Event('trigger', {'speed': self.speed, 'ground': [follow, read]}))
        self.old_state = self.state
        self._set_state(State.READ)
        self.counter_read = 0
        self.code = 0
        self.samples = []

    def _read(self, read: int) -> None:
        self.counter_read += 1
        c = self.counter_read
        if self.params.read_method == 'matched':
            self.samples.append(read)
            if c < self._matched_end():
                return
            black = [v < self.params.grey_thresh for v in self.samples]
            self.code = decode_matched(black, self.step_cm)
        else:
            first, second, third, end = self.read_schedule()
            if c in (first, second, third):
                self.samples.append(read)
                if read < self.params.grey_thresh:
                    self.code += {first: 1, second: 2, third: 4}[c]
            if c != end:
                return
        self.events.append(Event('barcode', {'code': self.code, 'speed': self.speed,
                                             'interval': self.interval, 'samples': self.samples}))
        self._set_state(self.old_state)
        if self.state is State.ROAD and self.params.barcode_actions:
            self._apply_road_code(self.code)
        elif self.state is State.EXIT and self.action is Action.LOCATION:
            # Inside a location a barcode names the place (Table 6).
            self.location = self.code
            self.events.append(Event('location', {'number': self.code}))

    def _apply_road_code(self, code: int) -> None:
        """Table 6, on the road: 1-3 set the speed; 4-7 announce an intersection."""
        p = self.params
        speeds = {1: p.speed_low, 2: p.speed_med, 3: p.speed_high}
        if code in speeds:
            if speeds[code] != self.speed:
                self.events.append(Event('speed', {'from': self.speed, 'to': speeds[code]}))
                self.speed = speeds[code]
            return
        action = INTERSECTION_CODES.get(code)
        if action is None:
            return
        # Intersections are driven at the lowest speed; a location and a crossroad also leave
        # at it (Appendix A: savedSpeed = SPEED_LOW for codes 5 and 6).
        self.saved_speed = p.speed_low if action in (Action.CROSSROAD, Action.LOCATION) else self.speed
        self.speed = p.speed_low
        self.action = action
        self.light_lane = None  # a new node: the previous location's light no longer speaks to it
        self._yielded = 0
        if action is Action.LOCATION:
            self.location = None  # until this location's barcode is read
        self.counter_continue = 0
        self.events.append(Event('intersection', {'action': action.name.lower()}))
        if action is Action.CROSSROAD:
            # The report draws the way on the barcode ("call math.rand(random); decisionState =
            # random%3"); we draw it at the first mark, before anything depends on it, so that
            # a route planner has seen the robot arrive at this node (Navigator).
            self.direction = ''
            self.turned_left = False
        self._set_state(State.ACTION)

    # --- intersections (report §7, Appendix A) -----------------------------------------------------
    def _random_choice(self, action: Action, passed: int) -> str:
        return 'exit' if self.rng.random() < 0.5 else 'continue'

    def _leave_intersection(self) -> None:
        self.speed = self.saved_speed
        self.events.append(Event('left', {'action': self.action.name.lower() if self.action is not None else None}))
        self.action = None
        self._set_state(State.ROAD)

    def _action(self, follow: int, read: int) -> None:
        """ACTION: follow the line (gain 2) and act on each mark as decided."""
        if self.action in (Action.BRANCHING, Action.LOCATION) and self.counter_continue >= 2:
            # "If continue was chosen, return to road state after two readings."
            self._leave_intersection()
            return
        if self.action is Action.CROSSROAD:
            if self.counter_continue == 3:
                # "I decided to force the fourth continue action directly at the end of the
                # third one" (§7.4): the last bit was often missed.
                self.counter_continue = 4
                self.counter = 0
                self._set_state(State.CONTINUE)
                return
            if self.counter_continue == 4:
                self._leave_intersection()
                return
        marks = 'crossroad' if self.action is Action.CROSSROAD else 'location' if self.action is Action.LOCATION else ''
        if not self._triggers(follow, read, marks):
            return
        self.counter = 0
        assert self.action is not None
        if self.action is Action.CROSSROAD:
            self._crossroad_mark()
            return
        may_exit = not (self.action is Action.ROUNDABOUT and self.counter_continue % 2)
        may_exit = may_exit and not (self.action in (Action.BRANCHING, Action.LOCATION)
                                     and self.counter_continue >= 1)
        choice = self.decide(self.action, self.counter_continue) if may_exit else 'continue'
        self.events.append(Event('decision', {'action': self.action.name.lower(), 'mark': self.counter_continue,
                                              'choice': choice}))
        if choice == 'exit':
            if self.action is Action.LOCATION:
                self.read_location = False
                self.light_lane, self.light_lane_count = 'siding', 0
                self._siding_released = False
            self._set_state(State.EXIT)
        else:
            self.counter_continue += 1
            self._set_state(State.CONTINUE)

    def _crossroad_mark(self) -> None:
        """The crossroad's sequences (§7.4): right exits at the first bit; straight crosses four
        times; left crosses twice, follows the central circle from the third bit (EXIT, then
        back to ACTION) and crosses twice more from the next one."""
        if not self.direction:
            self.direction = self.choose_direction()
            self.events.append(Event('decision', {'action': 'crossroad', 'mark': 0, 'choice': self.direction}))
        if self.direction == 'right' and self.counter_continue == 0 or \
                self.direction == 'left' and self.counter_continue == 2 and not self.turned_left:
            self._set_state(State.EXIT)
            return
        self.counter_continue += 1
        self._set_state(State.CONTINUE)

    def _closes_up(self) -> bool:
        """Improved rules: a priority vehicle behind a robot it hears, or a robot in a queue at a
        light that passes its news on, drives up to `priority_close_threshold`."""
        row = self.right_of_way
        if row is None:
            return False
        return row.ahead() is not None if self.params.kind == 'priority' else row.closes_up_for_priority()

    def _front_limit(self) -> int:
        """The front reading at which a reading pauses, or a robot waits at a barcode's trigger.
        A priority vehicle closes up there too: 23 cm behind a robot held at X1's south arm, on
        the trigger of X1's code, it was not heard and waited 39 s (priority seed 3)."""
        if self.params.kind == 'priority' and self._closes_up():
            return self.params.priority_close_threshold
        return self.params.obs_threshold

    def _cross(self, prox: list[int]) -> tuple[int, int]:
        """CONTINUE: drive blind across the exit or entry, with a slight left bias (§7.1, §9).

        Something in front stops the robot and freezes the count, since the crossing is timed
        (§6: "it stops the timer responsible for this motion without line following").
        """
        p = self.params
        if p.avoidance != 'off' and max(prox[1], prox[2], prox[3]) > p.obs_threshold:
            self.obstructed = True
            return 0, 0
        self.counter += 1
        assert self.action is not None
        bias = getattr(self.params, f'bias_{self.action.name.lower()}')
        if self.action is Action.CROSSROAD and self.turned_left:
            bias = self.params.bias_crossroad_left
        left, right = adiv(bias * self.speed, 100), self.speed
        if self.counter > self.params.crossing:
            self._set_state(State.ACTION)
        return _clip(left), _clip(right)

    def _exit(self, follow: int, read: int) -> None:
        """EXIT: follow the branch taken; in a location read its barcode, then stop and deliver."""
        if self.improved and self.obstructed:
            # The counts stand for distance: a robot queued in a siding behind one that delivers
            # would otherwise stop short of the location's barcode, then read it on the road as
            # a speed code (seen: "location 3" read as speed high, the robot lost in the next turn).
            return
        self.counter += 1
        p = self.params
        if self.action is Action.LOCATION:
            if not self.read_location and read > p.grey_thresh:
                self.read_location = True  # past the entry mark: the next barcode names the place
            elif self.read_location and self._triggers(follow, read):
                self._start_read(follow, read)
                return
            if self.counter > p.location_count:
                self.delivering = True
                self.events.append(Event('stop', {'location': self.location}))
                self._set_state(State.STOP)
        elif self.action is Action.CROSSROAD:
            if self.counter > p.crossroad_exit_count:
                if self.direction == 'left' and not self.turned_left:
                    # "then I forced him to come back to the ACTION state instead of the ROAD state"
                    self.turned_left = True
                    self._set_state(State.ACTION)
                else:
                    self._leave_intersection()
        elif self.counter > p.exit_count:
            if self.improved and self.action is Action.BRANCHING:
                self._link_merge, self._on_link = p.link_merge_count, True
            self._leave_intersection()

    def _deliver(self) -> None:
        """The 2 s stop in a location, then the road at the lowest speed ("like in a village").
        The count stands still while the location's light holds the siding (incrementCounter)."""
        self.counter += self.increment_counter
        if self.counter > self.params.location_count + self.params.stop_count:
            self.delivering = False
            self.read_location = False
            self.saved_speed = self.params.speed_low
            self._leave_intersection()

    # --- right of way between robots (traffic_rules 'improved'; control/right_of_way.py) -----------
    def role(self) -> Role:
        """The rank of the lane the robot is on, as it announces it."""
        if self.params.kind == 'priority':
            return Role.PRIORITY
        if self.state is State.CONTINUE:
            return Role.INSIDE  # crossing blind: the one most in the way and least able to help it
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
        if self.right_of_way is None:
            return 0
        return self.right_of_way.tx(self.role(), self.stopped_by_light, self._backing_blocked)

    def _right_of_way_step(self, follow: int, prox: list[int]) -> tuple[int, int] | None:
        """Making way, waiting after it, or yielding: the wheels, or None to drive as usual."""
        p, row = self.params, self.right_of_way
        assert row is not None
        role = self.role()
        if (row.asked_back is not None and self._making_way is None and role is not Role.PRIORITY and self._trail
                and self.state in (State.ROAD, State.ACTION, State.EXIT, State.CONTINUE, State.READ)):
            # The robot in front makes way and this one stands in its way back: back with it
            # (as far as it came: its trail is what it can retrace).
            self._holding = None
            self._start_making_way(row.ahead() or 0, 'asked_back', role)
        if self._making_way is not None:
            wheels = self._reverse(prox)
            if wheels is not None:
                return wheels
            self._making_way, self._holding, self._backing_blocked = None, 0, False
        if self._holding is not None:
            self._holding += 1
            waiting = row.blocking is not None or self._holding < p.make_way_hold
            if waiting and self._holding < p.make_way_hold_max:
                return 0, 0
            self._holding = None
            self.events.append(Event('resume', {}))
            if self.light_lane == 'siding' and not self.delivering:
                self._hold_for_siding_light()
                return 0, 0
        other, reason = row.must_make_way(role), 'outranked'
        # In a queue at a light (or within earshot of one) a robot waits twice as long before it
        # gives up: a red can outlast give_up_count, and a robot reading X1's code behind one held
        # at the red gave up, backed over the code and read it as a branching's (15 robots, seed 5).
        queued = row.in_light_queue(self.stopped_by_light) or self._since_light <= LIGHT_NEAR
        give_up = p.give_up_count * (2 if queued else 1)
        if p.give_up_stagger:
            give_up += p.give_up_stagger * int(role) + 2 * (MAX_ID - p.robot_id)
        if other is None and role is not Role.PRIORITY and row.blocked >= give_up:
            other, reason = row.ahead() or 0, 'gave_up'
        elif other is None and row.blocked >= p.crossing_give_up_count and self._blocked_crossing(prox):
            other, reason = 0, 'crossing'
        elif (other is None and role is not Role.PRIORITY and row.blocked >= p.crossing_give_up_count
              and row.ahead_cannot_back is not None):
            # The robot in front makes way for this one but cannot back (it asks the robot
            # behind it to back up, which does not hear it): this one backs instead. At R2's
            # south-east entry an entering robot, asked by a ring robot, backed into the next
            # one, and the three stood 113 s (15 robots seeds 2 and 6); at B1 a robot leaving by
            # one link, asked by one coming up the other, stood 48 s with a robot behind it,
            # and then drove the road the wrong way round (10 robots seed 2).
            other, reason = row.ahead() or 0, 'cannot_back'
        if other is not None and self.state in (State.ROAD, State.ACTION, State.EXIT, State.CONTINUE, State.READ):
            self._start_making_way(other, reason, role)
            return self._right_of_way_step(follow, prox)
        if role is Role.ENTERING and self._yielded < p.yield_max:
            other = row.higher_ahead(role)
            if other is not None:
                if not self._yielded:
                    self.events.append(Event('yield', {'to': other}))
                self._yielded += 1
                return 0, 0
        return None

    def _start_making_way(self, other: int, reason: str, role: Role) -> None:
        assert self.right_of_way is not None
        if self.state is State.READ:
            self._set_state(self.old_state)  # the barcode is read again on the way back
        self.right_of_way.blocked = 0
        self._retrace = [self._trail.pop() for _ in range(min(len(self._trail), self.params.make_way_count))][::-1]
        self._making_way = 0
        self.events.append(Event('make_way', {'for': other, 'reason': reason, 'role': role.name.lower()}))

    def _blocked_crossing(self, prox: list[int]) -> bool:
        """Crossing blind (CONTINUE) on a roundabout's ring past an entry or exit, or in the
        crossroad, or driving a branching's link (below), stopped by a robot it cannot hear that
        stands at its front right only (the centre-right sensor beyond obs_threshold, centre and
        centre-left below): one that came in from the right, which the robot turns towards
        (rings and X1's circle turn left; a ring robot that drove on came closer to it, 1300 to
        3600). The IR cones leave that robot unheard, and it cannot back: the ambulance never
        does, an entering robot often has a queue behind it. It held ring robots 30 s and more at
        R2 (72 s, 15 robots seed 2), and the ambulance, which passes reds, 30 s at R2 and 33 s at
        X1 (priority seeds 4 and 5)."""
        p, row = self.params, self.right_of_way
        where = self.action is Action.CROSSROAD or (self.action is Action.ROUNDABOUT and self.counter_continue >= 2)
        crossing = self.state is State.CONTINUE and where
        # A branching's two links cross each other, unmanaged: a robot leaving by one met a robot
        # coming up the other at the crossing, at its front right, and neither heard the other
        # (15 robots seed 8 at B1: 47 s, then contacts).
        on_link = ((self.state is State.EXIT and self.action is Action.BRANCHING)
                   or (self.state is State.ROAD and self._on_link and self._link_merge > 0))
        return (row is not None and (crossing or on_link)
                and max(prox[1], prox[2]) <= p.obs_threshold < prox[3] and row.ahead() is None)

    def _facing_light(self) -> bool:
        """The robot has stood `facing_light_count` events stopped by an obstacle that is no
        robot it hears, near a traffic light: it faces the light. Seen twice:

        - reading, at the siding exits (15 robots seed 1 at L4): the robot's follow sensor met
          the road's black edge in the merge's last bend, the report's spin turned it left
          across the road, and its reading sensor swept the edge and triggered. It then faced
          the light across the road (2400 on two front sensors), and the reading, paused while
          something is in front, waited until the give-up (60 s near a light);
        - crossing a location's merge blind (15 robots seed 4 at L5): the road robot's follow
          sensor read 215 on the mark's event, its line following turned it hard left, and the
          blind drive that the mark starts held that heading into the light beside the road
          (2390 and 2260 on its front-left sensors), until the give-up. Backing, it lost the
          road and turned round into the robot behind it."""
        row = self.right_of_way
        return (row is not None and row.blocked >= self.params.facing_light_count
                and row.ahead() is None and self._since_light <= LIGHT_NEAR)

    def _abandon_reading(self) -> None:
        """Back to the state the trigger interrupted. At a siding exit the robot is then off the
        road, and its line following spins to find it again."""
        self.events.append(Event('read_abandoned', {'count': self.counter_read, 'samples': self.samples}))
        self._set_state(self.old_state)

    def _abandon_crossing(self) -> None:
        """End the blind drive (as its count would): past the merge's mark the robot leaves the
        location, and its line following turns it from the light back to the road."""
        self.events.append(Event('crossing_abandoned', {'mark': self.counter_continue, 'count': self.counter}))
        self._set_state(State.ACTION)

    def _reverse(self, prox: list[int]) -> tuple[int, int] | None:
        """Back up the way it came, its last forward commands replayed backwards, waiting while
        something is close behind; None when done. Timed counts (a blind crossing, an exit) run
        back with it, and the distance that returns it is not read for marks again."""
        assert self._making_way is not None
        self._making_way += 1
        if not self._retrace or self._making_way > 3 * self.params.make_way_count:
            return None
        self._backing_blocked = max(prox[5], prox[6]) > self.params.obs_threshold_max
        if self._backing_blocked:
            return 0, 0
        left, right = self._retrace.pop()
        if self.state in (State.CONTINUE, State.EXIT):
            self.counter = max(0, self.counter - 1)
        self._suppress += max(0, (left + right) // 2)
        return -left, -right

    # --- traffic lights (Appendix A: allStop / allStart; docs/traffic.md) ---------------------------
    def on_comm(self, code: int, intensities: Sequence[int] | None = None) -> None:
        """A value received by IR (prox.comm.rx, with the 7 sensors' intensities when known).
        Other robots' announcements go to the right of way (improved rules). Light codes (traffic.decode) act on the lane the
        robot is in: at a crossroad, before it has started crossing, node+20 / node+40 addressed
        to the node it came from stop / start it; at a location, a robot that continued past the
        siding entry stops on node+20 and goes on node+40 and a robot leaving the siding does the
        opposite (its stop timer frozen while held); node+60 holds both. A robot is never stopped
        while it crosses (CONTINUE)."""
        if self.right_of_way is not None and self.right_of_way.hear(code, intensities):
            return
        if not self.params.obey_lights or self.params.kind == 'priority':
            return  # a priority vehicle passes red lights; the others give way (right_of_way.py)
        from thymio_road.control.traffic_light import decode
        decoded = decode(code)
        if decoded is None:
            return
        self._since_light = 0
        command, node = decoded
        lane = self._light_stopped_lane if self.stopped_by_light else self.light_context()
        if lane is None:
            return
        kind, address = lane
        if address is None and kind == 'crossroad':
            return  # the node it came from is unknown: it cannot know whether it is addressed
        if address is not None and node != address:
            return
        self._light_quiet = 0
        stop = command != 'go' if kind != 'siding' else command != 'stop'
        if self.improved and kind == 'siding':
            if not stop:
                self._siding_released = True
            elif command == 'all_stop' and self._siding_released:
                # Let go by the siding's green, it clears the merge in the all red that follows,
                # which is there for it. Stopped by it, it stood in the siding's exit curve,
                # 17-21 cm before the merge, where a road robot sees it at its front right
                # (3053) and stops: the road lane stood until the siding's next green (3 of 25
                # holds in 10 robots seed 2; at L1 in priority seed 1 the road robots in front of
                # the ambulance stood 30 and 44 s).
                stop = False
        if stop and self._priority_behind():
            stop = False  # give way to the priority vehicle behind: the light's stop does not hold
        if stop:
            self._light_stop(code, lane)
        else:
            self._light_go(code, lane)

    def light_context(self) -> tuple[str, int | None] | None:
        """The lane a light may command now, with the node id that addresses it, or None."""
        if self.action is Action.CROSSROAD and self.state is State.ACTION and self.counter_continue == 0:
            return 'crossroad', self.previous_node
        if self.action is Action.LOCATION and self.state is State.ACTION and self.counter_continue == 1:
            p = self.params
            if self.improved and self._merge_travel > (p.crossing + 1 + p.light_road_count) * p.speed_low:
                return None  # committed to the merge (light_road_count)
            return 'road', self.current_node
        if self.light_lane == 'siding' and (self.delivering or self.state in (State.EXIT, State.ROAD)):
            return 'siding', self.current_node
        return None

    def _light_stop(self, code: int | None, lane: tuple[str, int | None]) -> None:
        if self.delivering:
            if self.increment_counter:
                self.increment_counter = 0
                self.events.append(Event('light', {'code': code, 'command': 'hold', 'lane': lane[0]}))
            return
        if self.stopped_by_light:
            return
        self.stopped_by_light = True
        self._light_stopped_lane = lane
        self.light_old_state = self.state
        self.events.append(Event('light', {'code': code, 'command': 'stop', 'lane': lane[0],
                                           'from': self.state.name}))
        self._set_state(State.STOP)

    def _hold_for_siding_light(self) -> None:
        """Back in a location's siding lane after making way, the robot waits for its light's go
        again (or `light_timeout` of silence): what let it go before, a go or the timeout, is no
        longer the light's word. 10 robots seed 1 at L3: a road robot held at the red beside it
        hid the light, the siding robot drove on after the timeout, stood blocked by it 30 s,
        gave up its way and backed; when it came forward the light had let the road lane go,
        and it turned into the next road robot."""
        if not self.params.obey_lights or self.params.kind == 'priority':
            return
        self._light_quiet = 0
        self._siding_released = False
        self._light_stop(None, ('siding', self.current_node))

    def _priority_behind(self) -> bool:
        """Improved rules: a priority vehicle is heard behind (report §11: the others give way)."""
        return self.right_of_way is not None and self.right_of_way.priority_behind()

    def _light_go(self, code: int | None, lane: tuple[str, int | None] | None, command: str = '') -> None:
        command = command or ('go' if code is not None else 'timeout')
        if not self.increment_counter:
            self.increment_counter = 1
            self.events.append(Event('light', {'code': code, 'command': command, 'lane': lane[0] if lane else None}))
        if self.stopped_by_light:
            self.stopped_by_light = False
            self._light_stopped_lane = None
            self.events.append(Event('light', {'code': code, 'command': command, 'lane': lane[0] if lane else None,
                                               'to': self.light_old_state.name}))
            self._set_state(self.light_old_state)

    def _light_tick(self) -> bool:
        """Each event: the timeout (when set), the end of the siding lane; True while held by a light."""
        self._since_light = min(self._since_light + 1, LIGHT_NEAR + 1)
        if self.stopped_by_light or not self.increment_counter:
            self._light_quiet += 1
            if self.params.light_timeout and self._light_quiet > self.params.light_timeout:
                self._light_go(None, self._light_stopped_lane or ('siding', self.current_node))
            elif self.stopped_by_light and self._priority_behind():
                self._light_go(None, self._light_stopped_lane, 'priority')
        if self.light_lane == 'siding' and self.state is State.ROAD and not self.stopped_by_light \
                and not (self.improved and (self._last_obstructed or self._making_way is not None
                                            or self._holding is not None)):
            # Improved rules: distance forward, not time. A robot queued in the siding counted
            # its 40 counts standing still, stopped obeying the light and drove out beside a
            # road robot; backing to make way and waiting after it bring it no closer either.
            self.light_lane_count += 1
            if self.light_lane_count > self.params.light_siding_count:
                self.light_lane = None
                if self.improved:
                    # Still merging: 22 cm before the merge, a road robot beside it is seen on
                    # the front-left sensor only (10 robots seed 9 at L3: 3937 and rising, and
                    # it drove into it).
                    self._link_merge, self._on_link = self.params.link_merge_count, False
        return self.stopped_by_light

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
        if p.recovery == 'both':
            turning = self._recover(diff)
            if turning is not None:
                return turning
        k = self._gain()
        add_left, add_right = adiv(diff, k), adiv(-diff, k)
        left, right = self.speed + add_left, self.speed + add_right
        front = max(prox[1], prox[2], prox[3])
        if self.improved and (self.light_lane == 'siding' or self._link_merge):
            # Leaving a siding, or a branching's link, the robot turns left into the road: a road
            # robot beside it is seen only by the front-left sensor (the parallel lanes of §7.2
            # do not see each other).
            front = max(front, prox[0])
        if (p.avoidance != 'off' and front > p.obs_threshold
                and self.state in (State.ROAD, State.ACTION, State.EXIT)):
            if p.avoidance == 'v2':
                # Slow down in proportion to the obstacle and to the nominal speed (§6, Fig. 10).
                excess = front - p.obs_threshold
                slow = adiv(excess, adiv(75, 1 + adiv(self.speed, p.speed_low)))
                left, right = left - slow, right - slow
            stop_at = p.obs_threshold_max
            if self._closes_up():
                stop_at = max(stop_at, p.priority_close_threshold)  # close enough to be heard
            if p.avoidance == 'v1' or front > stop_at:
                left, right = 0, 0
                self.obstructed = True
        elif self.state is State.BACK and max(prox[5], prox[6]) > p.obs_threshold_max:
            left, right = 0, 0
        if abs(diff) > p.lost_threshold:
            left, right = self._spin(diff)
        elif self._spin_left:
            self._spin_left = self._crossed_dark = False  # found: lost again, it is on the usual side
        return _clip(left), _clip(right)

    def _spin(self, diff: int) -> tuple[int, int]:
        """Road lost: spin on the spot. With the report's sign it finds the road again only from
        the white side (§4). Recovery 'both': a robot that lost the road on white within
        CROSSED_DARK_WINDOW events of a location's blind crossing that took its follow sensor
        over the road's black is beyond the road's right edge, and spins left until it finds it.
        Seen at L2 and L4 (15 robots seeds 7 and 9): a robot that came to the entry mark still
        turning back from a swing of its line following (10–20° to the right) crossed the road
        blind (follow 340, 220, 170, then 610, 860), spun right, found the road backwards, and
        drove the road lane and the siding the wrong way (in ACTION, where the wrong-way test
        does not run); both runs collapsed."""
        p = self.params
        if diff > 0 and self._crossed_dark and self._since_crossing <= CROSSED_DARK_WINDOW:
            if not self._spin_left:
                self.events.append(Event('spin_left', {'follow': diff + p.grey_ref}))
            self._spin_left = True
        if self._spin_left:
            return -adiv(abs(diff), p.spin_divisor), adiv(abs(diff), p.spin_divisor)
        return adiv(diff, p.spin_divisor), adiv(-diff, p.spin_divisor)

    def _note_crossing(self, follow: int) -> None:
        """Recovery 'both': whether a location's blind crossing takes the follow sensor over black."""
        p = self.params
        if self.state is State.CONTINUE:
            if self._since_crossing:
                self._crossed_dark = False  # a new crossing
            self._since_crossing = 0
            if p.recovery == 'both' and self.action is Action.LOCATION and follow < p.grey_ref - p.lost_threshold:
                self._crossed_dark = True
        elif self._since_crossing <= CROSSED_DARK_WINDOW:
            self._since_crossing += 1

    def _recover(self, diff: int) -> tuple[int, int] | None:
        """Recovery 'both': the wrong-way test in ROAD and the U-turn; the wheels while it turns
        round, else None. (Remembering the side the road was lost on and spinning that way was
        tried: it found the road sooner from the black side but left robots pointed across the
        road oscillating between the two spins; 90 % instead of 100 % from the white side.)"""
        p = self.params
        if self._uturn:
            self._uturn -= 1
            # The lane's gradient lies on its right: turning right puts the follow sensor on it.
            return p.speed_low, -p.speed_low
        if self.state is not State.ROAD:
            self._clear_jitter()
            return None
        if abs(diff) > p.lost_threshold:
            return None  # searching: neither following the gradient nor the edge
        steps = self._follow_steps
        if self._last_diff is not None:
            if len(steps) == steps.maxlen:
                self._steps_sum -= steps[0]
            steps.append(abs(diff - self._last_diff))
            self._steps_sum += steps[-1]
        self._last_diff = diff
        if len(steps) == steps.maxlen and self._steps_sum > p.wrong_way_jitter * len(steps):
            jitter = self._steps_sum // len(steps)
            self._clear_jitter()
            self._uturn = p.uturn_count
            self.events.append(Event('wrong_way', {'jitter': jitter}))
            return self._recover(diff)
        return None

    def _clear_jitter(self) -> None:
        self._follow_steps.clear()
        self._steps_sum = 0
        self._last_diff = None


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
    # At intersections: leds.top(0, 10·actionType, 10·(3 − actionType)) (Appendix A).
    kind = int(controller.action) if controller.action is not None else 0
    return 0, min(32, 10 * kind), max(0, 10 * (3 - kind))
