# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The controller's parameters: Appendix A's constants, Table 5's speeds, and the knobs of the
traffic policies (docs/controller.md); each field declares its type, range and unit beside it
(map/schema.py), which the scenario reader and the nodes check.
"""
from __future__ import annotations

from dataclasses import dataclass

from thymio_road.control.messages import MAX_ID
from thymio_road.map import schema
from thymio_road.map.schema import param


@dataclass(frozen=True)
class ControllerParams:
    """Constants of Appendix A and Table 5; `grey_ref` is each robot's calibration (§10)."""

    grey_ref: int = param(500, 1, 1022, 'sensor units')
    speed_low: int = param(150, 1, 500, 'motor units')
    speed_med: int = param(260, 1, 500, 'motor units')
    speed_high: int = param(410, 1, 500, 'motor units')
    #: Initial road speed (Aseba units).
    speed: int = param(150, -500, 500, 'motor units')
    #: Proportional gains as dividing factors per state (§4): ROAD/BACK 3, READ 6, ACTION/EXIT 2.
    gain_road: int = param(3, 1, 1000, why='a dividing factor: 0 would divide by zero on the robot')
    gain_read: int = param(6, 1, 1000, why='a dividing factor: 0 would divide by zero on the robot')
    gain_action: int = param(2, 1, 1000, why='a dividing factor: 0 would divide by zero on the robot')
    #: Spin in place when |ground - GREY_REF| exceeds this (road lost).
    lost_threshold: int = param(300, 0, 1023, 'sensor units')
    spin_divisor: int = param(4, 1, 1000, why='a dividing factor: 0 would divide by zero on the robot')
    obs_threshold: int = param(1000, 0, 10000, 'sensor units')
    obs_threshold_max: int = param(3000, 0, 10000, 'sensor units')
    #: 'v2' slows down in proportion then stops (§6, Fig. 10); 'v1' stops; 'off' ignores obstacles.
    avoidance: str = param('v2', choices=('v1', 'v2', 'off'))
    #: GREY_THRESH: a right ground sensor value below it is a black bit (Appendix A).
    grey_thresh: int = param(400, 1, 1022, 'sensor units')
    #: The security against reading the road's black side: no trigger unless the follow sensor
    #: reads below GREY_REF + white_margin (the report's white_threshold, §5 and §9).
    white_margin: int = param(200, 0, 1023, 'sensor units')
    #: 'report': the security above; 'strict': also require the trigger reading to be as dark
    #: as printed black under the sensor (below black_ratio · GREY_REF) and the follow sensor
    #: near its reference — see docs/barcodes.md for why this removes the right-turn triggers.
    trigger_security: str = param('report', choices=('report', 'strict'))
    black_ratio: float = param(0.3, 0.0, 1.0, low_open=True, high_open=True)
    #: 'report': one sample per bit at counts 1 + ((2k+1)·interval − 1)/2 in integer arithmetic,
    #: as in Appendix A; 'inset': the report's counts, each moved on by whole events until it
    #: lies at least INSET_CM into its bit for eq. (1)'s distance per event; 'centred': one
    #: sample per bit at the count that puts it nearest the bit's centre (both end READ at the
    #: report's count); 'matched': a sample at every event, decoded as the code that explains
    #: them best for that distance per event — see docs/barcodes.md.
    read_method: str = param('report', choices=('report', 'inset', 'centred', 'matched'))
    #: Act on the codes read (speed changes, intersections); off for reading experiments.
    barcode_actions: bool = True
    #: The robot's speed calibration (report §10): motor commands are multiplied by it so that
    #: this robot drives at the reference robot's speed ("command × counts = constant").
    speed_factor: float = param(1.0, 0.5, 2.0)
    #: The left wheel's command is multiplied by it so that both wheels turn alike (measured by
    #: `thymio-road calibrate` from the line-following correction on a straight strip).
    wheel_balance: float = param(1.0, 0.8, 1.25)
    #: Intersection counters in 0.1 s counts (report §7), compared as in Appendix A
    #: (`counter > limit`): CONTINUE drives blind until it passes `crossing`; EXIT follows the
    #: line until `exit_count` (roundabout, branching: "42 counts" is `counter > 41`) before
    #: ROAD; in a location the robot stops after `location_count` for `stop_count` (2 s).
    crossing: int = param(21, 1, 1000, 'counts')
    exit_count: int = param(41, 1, 1000, 'counts')
    #: The crossroad's EXIT (right turn, or the left turn in the central circle): `counter > 29`.
    crossroad_exit_count: int = param(29, 1, 1000, 'counts')
    #: BACK lasts 1.2 s: the time the robot on the barcode needs to finish reading it (§6).
    back_count: int = param(12, 1, 1000, 'counts')
    #: CONTINUE's left wheel, in % of the speed, per intersection kind: the report's
    #: (85 + 3·actionType) % (§9) by default; tuned to a map's geometry when needed.
    bias_branching: int = param(85, 50, 100, '%')
    bias_roundabout: int = param(88, 50, 100, '%')
    bias_crossroad: int = param(91, 50, 100, '%')
    bias_location: int = param(94, 50, 100, '%')
    #: Leaving the crossroad's circle after a left turn (our addition, docs/intersections.md):
    #: a robot that has followed the 10.8 cm circle heads about 42° inside its tangent, because
    #: its sensors lead its wheels by 7.2 cm, so its last two crossings turn left more.
    bias_crossroad_left: int = param(91, 50, 100, '%')
    location_count: int = param(130, 1, 1000, 'counts')
    stop_count: int = param(20, 1, 1000, 'counts')
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
    light_timeout: int = param(0, 0, 100000, 'counts')
    #: The timeout at a crossroad's light (0: `light_timeout`; a scenario with crossroad lights
    #: sets it from their timing, scenario.crossroad_light_timeout). Silence there is not a green:
    #: a robot that drove on after a location's timeout met the crossing lanes' green (issue #27:
    #: a contact at X1's east exit 10 s into an all red). Longer than the crossroad's longest red,
    #: it lets only a light that has died (the report's battery, §9) be driven past.
    light_timeout_crossroad: int = param(0, 0, 100000, 'counts')
    #: Stopped by a crossroad's light's code, a robot that has not heard the light again for
    #: this many events backs straight, slowly, up to 3 cm, until it hears it (0: never, the
    #: report's robots). The light sends every event and the robot stands still, so that silence
    #: means it stopped just past where the light reaches: it would wait for the dead light's
    #: timeout through greens it cannot hear (priority seed 11: 105 s); see LightObedience.held_wheels.
    light_edge: int = param(0, 0, 1000, 'counts')
    light_siding_count: int = param(40, 1, 1000, 'counts')
    #: Improved rules: how far past a location's siding entry a robot on the road obeys the
    #: location's light, in events at the lowest speed (its wheel commands are summed, so a robot
    #: slowed behind another counts less). Past it (22 + 112 events at the lowest speed are 64 cm:
    #: 31 cm before the merge with the shipped 0.5 m parallel, where the robot starts to hear the
    #: light 36 cm before it) it has committed and drives through a red:
    #: stopped closer, it stood beside the start of the siding's exit curve (27 cm before the
    #: merge), in the way of the robot the light let out next (docs/traffic.md).
    light_road_count: int = param(112, 1, 1000, 'counts')
    #: Seed of the random decisions at intersections ("call math.rand", Appendix A).
    seed: int = param(0, 0, 2 ** 63 - 1)
    #: 'report': the road lost, the robot spins with the sign of the reading, so that from the
    #: black side it finds the road backwards (§4). 'both': it also recognises the wrong-way
    #: drive this leads to and turns round on the spot (`uturn_count` events: 180° at the lowest
    #: speed, π·9.4 cm / 2 / 4.8 cm/s ≈ 3.1 s). A robot driving backwards follows the lane's
    #: sharp outer edge, and there the follow reading jumps between white and black from one
    #: event to the next, where on the gradient it changes smoothly: over the last
    #: `wrong_way_window` events in ROAD, the mean change between successive readings exceeds
    #: `wrong_way_jitter` (wrong-way drives in the recovery experiment: median 223, 90 % above
    #: 47; the most any robot showed in two traffic runs of 10 and 15 robots: 78).
    recovery: str = param('report', choices=('report', 'both'))
    wrong_way_window: int = param(40, 2, 1000, 'events')
    wrong_way_jitter: int = param(150, 1, 1000, 'sensor units')
    uturn_count: int = param(31, 1, 1000, 'counts')
    #: 'report': robots know each other only by their proximity sensors, as in the report (its
    #: jams reproduce). 'improved': the right of way by IR of control/right_of_way.py (yield at
    #: roundabout entries, make way when blocking a robot of higher priority), and a robot that
    #: finds a robot on a barcode waits at the trigger, and pauses its reading, instead of
    #: backing up (BACK looped 217 times into the queue behind in a 10-robot run; issue #13).
    traffic_rules: str = param('report', choices=('report', 'improved'))
    #: The id a robot announces by IR (1..63; 0: none, only with the report's rules).
    robot_id: int = param(0, 0, MAX_ID)
    #: 'car', or 'priority' (an ambulance, report §8, §11): announced with the highest role.
    kind: str = param('car', choices=('car', 'priority'))
    #: Right-of-way counts (0.1 s): standing still behind an obstacle this long, the robot says
    #: whom it is blocked by; making way backs up this long, then waits at least `make_way_hold`
    #: and while the other still says it is blocked (at most `make_way_hold_max`); a robot
    #: blocked `give_up_count` without help makes way itself; an entering robot yields at most
    #: `yield_max`.
    blocked_count: int = param(20, 1, 10000, 'counts')
    make_way_count: int = param(30, 1, 10000, 'counts')
    make_way_hold: int = param(20, 1, 10000, 'counts')
    make_way_hold_max: int = param(100, 1, 10000, 'counts')
    give_up_count: int = param(300, 1, 10000, 'counts')
    #: A robot waits `give_up_stagger` events more per rank of its role, and 2 more per rank of
    #: its id, before it gives up (priority order: the lower robot gives up first; 0: all wait
    #: `give_up_count`): two robots that block each other without hearing each other's "blocked
    #: by" would give up at the same event, back, hold and come back together into contact.
    give_up_stagger: int = param(50, 0, 10000, 'counts')
    yield_max: int = param(150, 1, 10000, 'counts')
    #: Crossing blind on a roundabout's ring or in the crossroad, a robot stopped by one it
    #: cannot hear at its front right only (one that pushed in: the priority vehicle, or a robot
    #: entering the ring that did not hear the ring robot) makes way after this long instead
    #: of `give_up_count`: driving on brings it closer (control/rules/blocked_crossing.py).
    crossing_give_up_count: int = param(50, 1, 10000, 'counts')
    #: Improved: a reading, or a blind crossing of a location's mark, stopped this long by
    #: something in front that is no robot it hears, with a traffic light heard in the last
    #: LIGHT_NEAR events, is abandoned: the robot faces the light (a Thymio that never moves),
    #: and only following the line turns it away (control/rules/facing_light.py).
    facing_light_count: int = param(20, 1, 10000, 'counts')
    #: Improved: events of driving after leaving a branching by its link, or after a siding's
    #: light lane ends (light_siding_count), during which the front-left sensor counts as a
    #: front one, as in the siding's light lane: the link or the siding joins the other road
    #: from its right, and a robot passing there is seen on that sensor only. 60 events at the
    #: lowest speed are 29 cm: from the end of EXIT, or 22 cm before a location's merge, past it.
    link_merge_count: int = param(60, 1, 10000, 'counts')
    #: Improved: a priority vehicle stops for a robot it hears in front only beyond this front
    #: reading (about 15 cm centre to centre, against 17 cm at `obs_threshold_max`): with the
    #: enki_doc channel a robot's rear receivers hear the front emitters of one behind it only
    #: up to 15.5 cm, while its own rear emitters reach 20 cm and more. Stopped at 17 cm, the
    #: ambulance hears the robot held by a light in front of it, but that robot never hears the
    #: ambulance and does not drive on for it. A robot in
    #: a queue at a light with the ambulance behind closes up as much, to pass the news on.
    priority_close_threshold: int = param(3700, 0, 10000, 'sensor units')

    def __post_init__(self) -> None:
        schema.check(self)
        if self.traffic_rules == 'improved' and self.robot_id == 0:
            raise ValueError("traffic_rules 'improved' needs a robot_id in 1..63 (the id it announces by IR)")
