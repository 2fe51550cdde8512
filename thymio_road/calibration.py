# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The report's speed calibration (§10, Appendix B), run on simulated robots.

Each robot line-follows a straight calibration strip at a reference command and counts "prox"
events until its reading sensor meets the black bar at the end. A robot that needs more counts
than the reference robot is slower, so its commands are scaled by counts / reference counts
("command × counts = constant"). The result is each robot's `speed_factor` controller parameter.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from thymio_road.control.controller import ControllerParams, RoadController
from thymio_road.map import atomic
from thymio_road.map.loader import parse_map
from thymio_road.sim.world import RobotSpec, start_pose_on_road, World, WorldParams

STRIP_LENGTH = 0.6
REFERENCE_COMMAND = 260
_STRIP = {'name': 'calibration_strip', 'size': [STRIP_LENGTH + 0.4, 0.3],
          'roads': [{'id': 'strip', 'start': [0.1, 0.15, 0], 'pieces': [{'straight': STRIP_LENGTH + 0.2}]}],
          'marks': [{'id': 'stop', 'road': 'strip', 'at': STRIP_LENGTH}]}


def count_events(world: World, i: int, command: int, limit: int = 10_000) -> tuple[int, float]:
    """Events robot i needs, line-following at `command`, until its reading sensor sees black,
    and the mean left − right command it needed to keep straight over the second half.
    """
    controller = RoadController(ControllerParams(speed=command, barcode_actions=False,
                                                 grey_thresh=400, avoidance='off'))
    t = 0.0
    corrections = []
    for count in range(1, limit):
        t += 0.1
        world.sync(i, t)
        ground = world.read_ground(i)
        if ground[1] < controller.params.grey_thresh and count > 5:
            half = corrections[len(corrections) // 2:]
            return count, sum(half) / max(len(half), 1)
        left, right = controller.step((ground[0], 1023), [0] * 7)
        corrections.append(left - right)
        world.command(i, left, right, at=t)
    raise RuntimeError(f'robot {world.specs[i].name} never reached the calibration bar')


def calibrate(robot_count: int, seed: int, params: WorldParams, command: int = REFERENCE_COMMAND,
              parked: int = 0) -> dict[int, dict[str, float]]:
    """Speed factor and wheel balance of the robots a world with this seed and count creates,
    and `parked` bodies after them (a scenario's traffic lights): the world draws every body's
    gains in order, so a robot's wheel balance depends on how many bodies there are.

    The wheel balance is our addition: the report's strip kept the robot straight with its
    gradient (§10) but did not measure how much correction that took. Going straight, the left
    wheel's command exceeds the right one's by the mean correction c, so the wheels' gains
    differ by (command + c/2)/(command − c/2).
    """
    strip = parse_map(_STRIP, 'calibration strip')
    pose = start_pose_on_road(strip, 'strip', 0.05)
    # The robots' motor gains depend only on the seed, their index and the bodies' count, not on
    # the map.
    world = World(strip, [RobotSpec(f'r{k}', *pose) for k in range(robot_count)]
                  + [RobotSpec(f'parked{k}', *pose, static=True) for k in range(parked)], params, seed)
    exact = replace(params, motor_gain_spread=0.0, motor_noise=0.0)
    reference, _ = count_events(World(strip, [RobotSpec('ref', *pose)], exact, seed), 0, command)
    factors = {}
    for i in range(robot_count):
        # One robot at a time on the strip: the others are parked far away.
        world.poses[:, 1] = 10.0
        world.poses[i] = pose
        world.clock[:] = 0.0
        counts, correction = count_events(world, i, command)
        half = correction / 2
        factors[i] = {'speed_factor': round(counts / reference, 3),
                      'wheel_balance': round((command + half) / (command - half), 4)}
    return factors


def write_overrides(names: list[str], factors: dict[int, dict[str, float]], path: Path) -> None:
    """A YAML file of per-robot controller overrides (`robots: calibration:` in a scenario)."""
    data = {name: factors[i] for i, name in enumerate(names)}
    atomic.write_text(path, '# Speed calibration (report §10): command × counts = constant.\n'
                      + yaml.safe_dump(data, sort_keys=True))
