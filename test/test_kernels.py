# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The compiled world (the kernels of thymio_road/sim) against the numpy world it replaced, bit for bit.

test/world_reference.py holds the former World and sensors. Both worlds get the same robots,
seed and commands, and every pose, reading and ground-truth value must be equal: the compiled
core changes how fast the simulation runs, never what it computes. The last tests keep the
kernels' packed arguments in order: layout.py's names tile each packed array, and no function
of thymio_road/sim takes more than 12 parameters.
"""
import importlib
import inspect
from pathlib import Path
import pkgutil

from numba.core.dispatcher import Dispatcher
import numpy as np
import pytest

from thymio_road.map.loader import parse_map
from thymio_road.sim import kernel_cache, layout
from thymio_road.sim import noise as noise_module
from thymio_road.sim import tick as tick_module
from thymio_road.sim import world as world_module
from thymio_road.sim.broad_phase import close_robots
from thymio_road.sim.world import RobotSpec, start_pose_on_road, World, WorldParams
from world_reference import ReferenceWorld

EXACT = WorldParams(motor_noise=0.0, motor_gain_spread=0.0, wheel_imbalance_spread=0.0, ground_noise=0.0,
                    prox_noise=0.0, odometry_scale_spread=0.0)


def _map(walls):
    return parse_map({'size': [1.0, 1.0], 'walls': walls,
                      'roads': [{'id': 'r', 'start': [0.3, 0.3, 0], 'closed': True, 'pieces': [
                          {'straight': 0.4}, {'arc': {'radius': 0.2, 'angle_deg': 180}},
                          {'straight': 0.4}, {'arc': {'radius': 0.2, 'angle_deg': 180}}]}],
                      'barcodes': [{'id': 'b', 'road': 'r', 'at': 0.1, 'code': 5}]},
                     'inline')


def _crowd(seed, count=12):
    """Robots packed in a 1 m box (a static one among them), so that they see and push each other."""
    rng = np.random.default_rng(seed)
    specs = [RobotSpec('t0', *start_pose_on_road(_map(False), 'r', 0.0))]  # drives over the barcode
    for k in range(1, count):
        x, y = 0.15 + 0.7 * rng.random(), 0.15 + 0.7 * rng.random()
        specs.append(RobotSpec(f't{k}', x, y, rng.uniform(-np.pi, np.pi), static=(k == 3)))
    return specs


def _drive(world, seconds, seed, fused=False):
    """The world node's loop: contacts every tick, then each due robot's event and a new command
    (`fused`: the event by World.event, as the world node does, else by its four parts).
    """
    rng = np.random.default_rng(seed)
    log = []
    ticks = int(round(seconds / world.params.physics_dt))
    for tick in range(1, ticks + 1):
        t = tick * world.params.physics_dt
        world.settle_contacts(t)
        for i in world.due(tick):
            i = int(i)
            if fused:
                prox, ground, barcode = world.event(i, t)
                ground = tuple(int(v) for v in ground)
            else:
                world.sync(i, t)
                prox = world.read_prox(i)
                ground = world.read_ground(i)
                barcode = world.record_road_truth(i)
            if isinstance(world, World):
                assert barcode == world.barcode_under(i)
            log.append((i, prox.tolist(), ground, world.barcode_under(i), world.poses.copy()))
            left, right = int(rng.integers(-300, 500)), int(rng.integers(-300, 500))
            world.command(i, *((200, 200) if i == 0 else (left, right)), at=t)
    return log


@pytest.mark.parametrize('fused', [False, True], ids=['parts', 'World.event'])
@pytest.mark.parametrize('walls', [False, True])
@pytest.mark.parametrize('params', [EXACT, WorldParams()], ids=['noise off', 'noise on'])
def test_compiled_world_matches_the_numpy_world_bit_for_bit(walls, params, fused, monkeypatch):
    if fused:  # a short displacement log, so that it fills and is added up many times
        monkeypatch.setattr(world_module, 'DISTANCE_LOG', 5)
    specs = _crowd(5)
    new = World(_map(walls), specs, params, seed=11)
    old = ReferenceWorld(_map(walls), specs, params, seed=11)
    log_new, log_old = _drive(new, 6.0, 2, fused), _drive(old, 6.0, 2)
    assert len(log_new) == len(log_old) > 500
    seen = 0
    for (i, prox, ground, bar, poses), (j, prox_old, ground_old, bar_old, poses_old) in zip(log_new, log_old):
        assert (i, prox, ground, bar) == (j, prox_old, ground_old, bar_old)
        assert np.array_equal(poses, poses_old)
        seen += any(prox)
    assert seen > 100  # robots did see each other: the rays were exercised
    assert new.contacts.sum() > 0  # ...and pushed each other: so were the contacts
    assert any(bar >= 0 for _, _, _, bar, _ in log_new)  # and some crossed the barcode
    for name in ('odom', 'clock', 'distance', 'time_sensed', 'time_on_road', 'road_losses', 'contacts',
                 'targets', 'target', 'wheel'):
        assert np.array_equal(getattr(new, name), getattr(old, name)), name


def test_broad_phase_finds_exactly_the_robots_with_a_close_neighbour():
    rng = np.random.default_rng(3)
    for n, side in ((2, 0.3), (40, 2.0), (300, 5.0), (300, 200.0)):
        poses = np.column_stack([rng.random((n, 2)) * side, rng.uniform(-3, 3, n)])
        r = 0.2
        d = poses[:, None, :2] - poses[None, :, :2]
        close = (d * d).sum(axis=-1) < r * r
        np.fill_diagonal(close, False)
        out = np.empty(n, dtype=np.int64)
        m = close_robots(poses, r, r * r, out)
        assert out[:m].tolist() == np.flatnonzero(close.any(axis=1)).tolist()


def test_robots_far_apart_are_not_moved_by_the_contact_pass():
    """No robot close to another: settle_contacts leaves every robot on its own clock."""
    specs = [RobotSpec(f't{k}', 0.2 + 0.3 * (k % 3), 0.2 + 0.3 * (k // 3), 0.0) for k in range(6)]
    world = World(_map(False), specs, EXACT)
    for i in range(6):
        world.command(i, 200, 200)
    world.settle_contacts(0.5)
    assert not world.clock.any()


def _drive_ticks(world, seconds, seed):
    """The world node's loop as the runtime runs it: a tick's events, then the controllers' commands
    (delivered after the tick); World.tick and command_soon for the compiled world, the parts and
    command for the numpy one.
    """
    rng = np.random.default_rng(seed)
    log = []
    ticks = int(round(seconds / world.params.physics_dt))
    for tick in range(1, ticks + 1):
        t = tick * world.params.physics_dt
        due = world.due(tick)
        if isinstance(world, World):
            outs, states = world.tick(t, due)
            for k, i in enumerate(due.tolist()):
                log.append((i, outs[k, :7].tolist(), tuple(outs[k, 7:9].tolist()), int(outs[k, 9]),
                            states[k].tolist()))
        else:
            world.settle_contacts(t)
            for i in due.tolist():
                world.sync(i, t)
                prox, ground = world.read_prox(i), world.read_ground(i)
                world.record_road_truth(i)
                barcode = world.barcode_under(i)
                state = [*world.poses[i], *world.odom[i], *world.wheel[i]]
                log.append((i, prox.tolist(), tuple(int(v) for v in ground), barcode, [float(v) for v in state]))
        for i in due.tolist():
            left, right = int(rng.integers(-300, 500)), int(rng.integers(-300, 500))
            wheels = (200, 200) if i == 0 else (left, right)
            if isinstance(world, World):  # as the world node's fast path: queued for the next tick
                world.command_soon(i, *wheels, t)
            else:
                world.command(i, *wheels, at=t)
    return log


@pytest.mark.parametrize('walls', [False, True])
@pytest.mark.parametrize('params', [EXACT, WorldParams()], ids=['noise off', 'noise on'])
def test_a_compiled_tick_matches_the_numpy_world_bit_for_bit(walls, params, monkeypatch):
    """World.tick (the queued commands, the contact pass and the tick's events in one call,
    stopping for Python's contact resolution and for noise refills) against the numpy world's
    parts; short noise blocks and displacement log, so that every refill path runs often.
    """
    monkeypatch.setattr(world_module, 'DISTANCE_LOG', 5)
    monkeypatch.setattr(noise_module, 'BLOCK', 30)
    specs = _crowd(6)
    new = World(_map(walls), specs, params, seed=12)
    old = ReferenceWorld(_map(walls), specs, params, seed=12)
    log_new, log_old = _drive_ticks(new, 6.0, 3), _drive_ticks(old, 6.0, 3)
    assert len(log_new) == len(log_old) > 500
    assert log_new == log_old
    assert new.contacts.sum() > 0 and sum(any(p) for _, p, _, _, _ in log_new) > 100
    for name in ('poses', 'odom', 'clock', 'distance', 'time_sensed', 'time_on_road', 'road_losses', 'contacts',
                 'targets', 'target', 'wheel'):
        assert np.array_equal(getattr(new, name), getattr(old, name)), name


def test_a_crowd_big_enough_for_the_neighbour_grid_ticks_as_the_numpy_world():
    """With GRID_MIN_ROBOTS robots and more, a tick's events find their neighbours in a grid of
    cells built once per tick; robots that move fast and far between events (a robot's clock
    lags the tick by up to its period) must still be found: the same readings, bit for bit.
    """
    count = tick_module.GRID_MIN_ROBOTS + 40
    side = 4.0
    loop = [{'straight': 3.0}, {'arc': {'radius': 0.3, 'angle_deg': 180}}, {'straight': 3.0},
            {'arc': {'radius': 0.3, 'angle_deg': 180}}]
    road_map = parse_map({'size': [side, side], 'roads': [{'id': 'r', 'start': [0.5, 0.5, 0], 'closed': True,
                                                           'pieces': loop}]}, 'inline')
    rng = np.random.default_rng(8)
    specs = [RobotSpec(f't{k}', 0.1 + (side - 0.2) * rng.random(), 0.1 + (side - 0.2) * rng.random(),
                       rng.uniform(-np.pi, np.pi), static=(k % 50 == 7)) for k in range(count)]
    new = World(road_map, specs, EXACT, seed=4)
    old = ReferenceWorld(road_map, specs, EXACT, seed=4)
    log_new, log_old = _drive_ticks(new, 2.0, 5), _drive_ticks(old, 2.0, 5)
    assert len(log_new) == len(log_old) == 20 * count
    assert log_new == log_old
    assert sum(any(p) for _, p, _, _, _ in log_new) > 200  # robots saw one another
    assert np.array_equal(new.poses, old.poses)


#: The most parameters a function of thymio_road/sim may take (issue #26): more means that the
#: arrays it takes belong in a packed array or a tuple of sim/layout.py.
MAX_PARAMETERS = 12
SIM = Path(world_module.__file__).resolve().parent


def _sim_functions() -> dict:
    """Every function and method written in thymio_road/sim, by module and qualified name;
    compiled kernels (numba dispatchers) by their Python function.
    """
    found = {}
    for info in pkgutil.iter_modules([str(SIM)]):
        module = importlib.import_module(f'thymio_road.sim.{info.name}')
        for value in vars(module).values():
            for item in (vars(value).values() if inspect.isclass(value) else [value]):
                if isinstance(item, (staticmethod, classmethod)):
                    item = item.__func__
                if isinstance(item, property):
                    item = item.fget
                if isinstance(item, Dispatcher):
                    item = item.py_func
                # Only code written in sim: not imports from elsewhere, nor what dataclasses generate.
                if inspect.isfunction(item) and Path(item.__code__.co_filename).resolve().parent == SIM:
                    found[f'{item.__module__.rpartition(".")[2]}.{item.__qualname__}'] = item
    return found


def test_no_function_in_sim_takes_more_than_12_parameters():
    counts = {name: len(inspect.signature(fn).parameters) for name, fn in _sim_functions().items()}
    assert {'tick.tick', 'tick.event', 'tick.sense', 'proximity.prox_rays', 'world.World.tick'} <= set(counts)
    assert {name: k for name, k in counts.items() if k > MAX_PARAMETERS} == {}


@pytest.mark.parametrize('packed', sorted(layout.PACKED))
def test_layout_names_are_unique_and_tile_each_packed_array(packed):
    """Each packed array's (or tuple's) named fields cover its width exactly once, and each name
    is the layout's constant of that index: two names for one column, a gap, or a table out of
    step with the constants fails here rather than as a silently wrong value.
    """
    fields, width = layout.PACKED[packed]
    covered = [k for start, size in fields.values() for k in range(start, start + size)]
    assert sorted(covered) == list(range(width)), packed
    for name, (start, _) in fields.items():
        assert getattr(layout, name) == start, name


def test_the_layout_tuples_put_each_array_at_its_name():
    for build, fields in ((layout.fleet, layout.FLEET_FIELDS), (layout.work, layout.WORK_FIELDS),
                          (layout.tables, layout.TABLE_FIELDS), (layout.io, layout.IO_FIELDS)):
        arrays = {name.lower(): object() for name in fields}
        packed = build(**arrays)
        assert len(packed) == len(fields)
        for name, (index, _) in fields.items():
            assert packed[index] is arrays[name.lower()], name


def test_the_world_arrays_have_the_layout_widths():
    world = World(_map(False), _crowd(1, count=4), EXACT)
    assert world._robots.shape == (4, layout.ROBOT_COLUMNS)
    assert world._robot_ints.shape == (4, layout.ROBOT_INT_COLUMNS)
    assert world._params.shape == (layout.PARAMS,)
    assert world._noise.shape[0] == layout.NOISE_ROWS
    assert world._outs.shape[1] == layout.OUT_COLUMNS and world._states.shape[1] == layout.STATE_COLUMNS
    assert world._segments.shape[0] == layout.SEGMENT_ROWS and world._queue.shape[1] == layout.QUEUE_COLUMNS
    for name, value in (('poses', [0.2, 0.3, 0.4]), ('odom', [0.5, 0.6, 0.7]), ('clock', 1.5)):
        getattr(world, name)[1] = value
    assert world._robots[1, layout.POSE + layout.THETA] == 0.4 and world._robots[1, layout.CLOCK] == 1.5
    assert world._robots[1, layout.ODOM + layout.X] == 0.5


def test_each_kernel_module_runs_code_compiled_from_the_current_sources():
    """Numba's cache follows only a kernel's own file; kernel_cache drops a module's cache when
    its kernels were compiled from other versions of the files they fold in.
    """
    for name in ('motion', 'broad_phase', 'proximity', 'ground', 'tick'):
        module = importlib.import_module(f'thymio_road.sim.{name}')
        assert module.compiled_digest() == kernel_cache.DIGEST, name
