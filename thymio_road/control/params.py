"""The controller's parameters: Appendix A's constants, Table 5's speeds, and the knobs of the
traffic policies (docs/controller.md); every value is range-checked here, once."""
from __future__ import annotations

from dataclasses import dataclass

from thymio_road.control.messages import MAX_ID

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
    #: Thymio's width (counted in ROAD only, measured: they end 13.8-25.5 cm before it, median
    #: 14.8). From there it has started merging and, like a robot crossing, ignores the light
    #: (docs/traffic.md).
    obey_lights: bool = True
    light_timeout: int = 0
    #: The timeout at a crossroad's light (0: `light_timeout`; a scenario with crossroad lights
    #: sets it from their timing, scenario.crossroad_light_timeout). Silence there is not a green:
    #: with four lights and the robots around it all sending, a held robot can miss every code of
    #: its light for longer than a location's timeout while the light still says red, and a robot
    #: that drives on then meets the crossing lanes' green (issue #27: a contact at X1's east exit
    #: 10 s into an all red). Longer than the crossroad's longest red, it lets only a light that
    #: has died (the report's battery, §9) be driven past.
    light_timeout_crossroad: int = 0
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
    #: `give_up_count`): two robots that block each other without hearing each other's "blocked
    #: by" would give up at the same event, back, hold and come back together into contact.
    give_up_stagger: int = 50
    yield_max: int = 150
    #: Crossing blind on a roundabout's ring or in the crossroad, a robot stopped by one it
    #: cannot hear at its front right only (one that pushed in: the priority vehicle, or a robot
    #: entering the ring that did not hear the ring robot) makes way after this long instead
    #: of `give_up_count`: driving on brings it closer (control/rules/blocked_crossing.py).
    crossing_give_up_count: int = 50
    #: Improved: a reading, or a blind crossing of a location's mark, stopped this long by
    #: something in front that is no robot it hears, with a traffic light heard in the last
    #: LIGHT_NEAR events, is abandoned: the robot faces the light (a Thymio that never moves),
    #: and only following the line turns it away (control/rules/facing_light.py).
    facing_light_count: int = 20
    #: Improved: events of driving after leaving a branching by its link, or after a siding's
    #: light lane ends (light_siding_count), during which the front-left sensor counts as a
    #: front one, as in the siding's light lane: the link or the siding joins the other road
    #: from its right, and a robot passing there is seen on that sensor only. 60 events at the
    #: lowest speed are 29 cm: from the end of EXIT, or 22 cm before a location's merge, past it.
    link_merge_count: int = 60
    #: Improved: a priority vehicle stops for a robot it hears in front only beyond this front
    #: reading (about 15 cm centre to centre, against 17 cm at `obs_threshold_max`): with the
    #: enki_doc channel a robot's rear receivers hear the front emitters of one behind it only
    #: up to 15.5 cm, while its own rear emitters reach 20 cm and more. Stopped at 17 cm, the
    #: ambulance hears the robot held by a light in front of it, but that robot never hears the
    #: ambulance and does not drive on for it. A robot in
    #: a queue at a light with the ambulance behind closes up as much, to pass the news on.
    priority_close_threshold: int = 3700

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be {_either(allowed)}, got {getattr(self, name)!r}")
        for names, (low, high, shown) in _RANGES:
            for name in names.split():
                value = getattr(self, name)
                if not low <= value <= high:  # NaN fails too
                    raise ValueError(f'{name} must be in {shown}, got {value}')
        if self.traffic_rules == 'improved' and self.robot_id == 0:
            raise ValueError("traffic_rules 'improved' needs a robot_id in 1..63 (the id it announces by IR)")


#: Fields that take one of a few words.
_CHOICES = {
    'avoidance': ('v1', 'v2', 'off'),
    'read_method': ('report', 'matched'),
    'trigger_security': ('report', 'strict'),
    'recovery': ('report', 'both'),
    'traffic_rules': ('report', 'improved'),
    'kind': ('car', 'priority'),
}
#: (fields, (low, high, the range as the message shows it)): each value in [low, high].
_RANGES = (
    ('grey_ref grey_thresh', (1, 1022, '1..1022')),
    ('speed_low speed_med speed_high', (1, 500, '1..500 motor units')),
    ('speed', (-500, 500, '-500..500 motor units')),
    # Dividing factors (Aseba integer division): zero would divide by zero on the robot.
    ('gain_road gain_read gain_action spin_divisor', (1, 1000, '1..1000')),
    ('lost_threshold', (0, 1023, '0..1023')),
    ('obs_threshold obs_threshold_max priority_close_threshold', (0, 10000, '0..10000')),
    ('white_margin', (0, 1023, '0..1023')),
    ('bias_branching bias_roundabout bias_crossroad bias_crossroad_left bias_location', (50, 100, '50..100 %')),
    ('light_timeout light_timeout_crossroad', (0, 100000, '0..100000 counts')),
    ('crossing exit_count crossroad_exit_count location_count stop_count back_count light_siding_count '
     'light_road_count uturn_count', (1, 1000, '1..1000 counts')),
    ('wheel_balance', (0.8, 1.25, '[0.8, 1.25]')),
    ('speed_factor', (0.5, 2.0, '[0.5, 2]')),
    ('black_ratio', (1e-9, 1 - 1e-9, '(0, 1)')),
    ('wrong_way_window', (2, 1000, '2..1000 events')),
    ('wrong_way_jitter', (1, 1000, '1..1000')),
    ('robot_id', (0, MAX_ID, f'0..{MAX_ID}')),
    ('blocked_count make_way_count make_way_hold make_way_hold_max give_up_count yield_max '
     'crossing_give_up_count facing_light_count link_merge_count', (1, 10000, '1..10000 counts')),
    ('give_up_stagger', (0, 10000, '0..10000 counts')),
)


def _either(words: tuple[str, ...]) -> str:
    quoted = [repr(w) for w in words]
    return ', '.join(quoted[:-1]) + f' or {quoted[-1]}'
