# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Where every value lives in the World's packed arrays: the one definition of their layouts.

The compiled kernels take the World's state as a few packed arrays and tuples of arrays, not as
dozens of arrays: a numba call costs about 0.1 µs per array it is given, and the World makes one
per tick. Each column, row or slot has a name here, and the kernels (motion, broad_phase,
proximity, ground, tick) and the World's views of the arrays (world.py) index with these names
only. They are plain module-level ints: numba freezes a global as a compile-time constant, so
``robots[i, POSE + X]`` compiles to what ``robots[i, 0]`` did. numba's cache does not see a
change here by itself; kernel_cache.py makes it.

The ``*_FIELDS`` tables say which names each array has and how wide each field is, so that a
test checks that they tile the array exactly (test/test_kernels.py).
"""
from __future__ import annotations

import numpy as np

from thymio_road.sim import robot_model as rm

# --- components, counted from a field's first column ---------------------------------------------
#: A pose: x, y, θ; a point, a displacement or a wall's end: x, y.
X, Y, THETA = 0, 1, 2
POSE_WIDTH = 3
POINT_WIDTH = 2
#: A pose's or a point's position (x, y), for numpy code.
XY = slice(X, Y + 1)
#: A left-right pair: wheels, motors, ground sensors (and their noise samples).
LEFT, RIGHT = 0, 1
PAIR = 2
#: The horizontal proximity sensors (Aseba order).
PROX_COUNT = len(rm.PROX_NAMES)

# --- robots: float64 (n, ROBOT_COLUMNS), a robot's float state per row ------------------------
POSE = 0  # ground truth x, y, θ
ODOM = 3  # the odometry's pose
TARGET = 6  # wheel target speeds (m/s), left and right
WHEEL = 8  # wheel speeds (m/s)
ODOM_SCALE = 10  # the odometry's scale error per wheel
CLOCK = 12  # the robot's own time (s)
TIME_SENSED = 13  # ground truth: time sampled at its events (s)
TIME_ON_ROAD = 14  # ... of which on the road (s)
OFF_ROAD_FOR = 15  # how long its follow sensor has been off the road (s)
GAIN = 16  # motor gain per wheel (the robot's own motors)
ROBOT_COLUMNS = 18
ROBOT_FIELDS = {'POSE': (POSE, POSE_WIDTH), 'ODOM': (ODOM, POSE_WIDTH), 'TARGET': (TARGET, PAIR),
                'WHEEL': (WHEEL, PAIR), 'ODOM_SCALE': (ODOM_SCALE, PAIR), 'CLOCK': (CLOCK, 1),
                'TIME_SENSED': (TIME_SENSED, 1), 'TIME_ON_ROAD': (TIME_ON_ROAD, 1),
                'OFF_ROAD_FOR': (OFF_ROAD_FOR, 1), 'GAIN': (GAIN, PAIR)}

# --- robot_ints: int64 (n, ROBOT_INT_COLUMNS), a robot's integers per row ---------------------
MOTOR = 0  # motor targets (Aseba units), left and right
ROAD_LOSSES = 2  # ground truth: times the robot lost the road
#: Work lists of robot indices, at most n long, kept as columns so they need no array of their
#: own: the group an event or the contact pass moves, the robots near a proximity sensor.
GROUP = 3
NEAR = 4
ROBOT_INT_COLUMNS = 5
ROBOT_INT_FIELDS = {'MOTOR': (MOTOR, PAIR), 'ROAD_LOSSES': (ROAD_LOSSES, 1), 'GROUP': (GROUP, 1),
                    'NEAR': (NEAR, 1)}

# --- params: float64 (PARAMS,), the World's constants that the kernels read ----------------------
TOUCH_RADIUS = 0  # centres closer than this may touch before either senses again (m)
TOUCH_RADIUS2 = 1  # ... squared
SENSE_R2 = 2  # (centre distance under which one robot may sense another)²
HULL_REACH2 = 3  # (centre distance under which two hulls may overlap)²
PROX_REACH2 = 4  # (centre distance under which a hull may be within a sensor's range)²
PROX_SIGMA = 5  # proximity noise σ
RESOLUTION = 6  # the map raster's pixel (m)
GROUND_SIGMA = 7  # ground noise σ
PERIOD = 8  # time between a robot's events (s)
LOSS_TIME = 9  # off the road this long is a loss (s)
MOTOR_SIGMA = 10  # motor noise, relative
ROWS = 11  # the map raster's rows (a whole number)
COLS = 12  # ... and columns
PARAMS = 13
PARAM_FIELDS = {name: (globals()[name], 1) for name in (
    'TOUCH_RADIUS', 'TOUCH_RADIUS2', 'SENSE_R2', 'HULL_REACH2', 'PROX_REACH2', 'PROX_SIGMA', 'RESOLUTION',
    'GROUND_SIGMA', 'PERIOD', 'LOSS_TIME', 'MOTOR_SIGMA', 'ROWS', 'COLS')}

# --- noise: float64 (NOISE_ROWS, block), the noise streams' buffers (each refills its row) --------
NOISE_GROUND, NOISE_PROX, NOISE_MOTOR = 0, 1, 2
NOISE_ROWS = 3
NOISE_FIELDS = {'NOISE_GROUND': (NOISE_GROUND, 1), 'NOISE_PROX': (NOISE_PROX, 1), 'NOISE_MOTOR': (NOISE_MOTOR, 1)}

# --- ints: int64 1-D, the kernels' counters then the displacement log's robots -------------------
LOGGED = 0  # entries in the displacement log
GROUP_SIZE = 1  # robots in the GROUP column after an event or a contact pass that stopped
STOPPED_FOR = 2  # why tick stopped (tick.NEED_ROOM, ...)
SETTLED = 3  # 1 once the tick's contact pass is done
#: The noise streams' cursors (NoiseStream.cursor), in the order of the noise rows.
CURSORS = 4
GROUND_CURSOR = CURSORS + NOISE_GROUND
PROX_CURSOR = CURSORS + NOISE_PROX
MOTOR_CURSOR = CURSORS + NOISE_MOTOR
QUEUE_DONE = 7  # the queued commands applied so far
#: The displacement log's robots from here to the end (its steps are the work tuple's LOG_STEP).
LOG = 8
INT_FIELDS = {'LOGGED': (LOGGED, 1), 'GROUP_SIZE': (GROUP_SIZE, 1), 'STOPPED_FOR': (STOPPED_FOR, 1),
              'SETTLED': (SETTLED, 1), 'CURSORS': (CURSORS, NOISE_ROWS), 'QUEUE_DONE': (QUEUE_DONE, 1)}

# --- segments: float64 (SEGMENT_ROWS, k), the walls' and near hulls' edges for the rays ---------
AX, AY, BX, BY = 0, 1, 2, 3
SEGMENT_ROWS = 4
SEGMENT_FIELDS = {'AX': (AX, 1), 'AY': (AY, 1), 'BX': (BX, 1), 'BY': (BY, 1)}
#: The walls (k, WALL_ENDS, POINT_WIDTH): each one's two ends.
END_A, END_B = 0, 1
WALL_ENDS = 2

# --- queue: int64 (k, QUEUE_COLUMNS), commands waiting for the next tick ---------------------
QUEUE_ROBOT, QUEUE_LEFT, QUEUE_RIGHT = 0, 1, 2
QUEUE_COLUMNS = 3
QUEUE_FIELDS = {'QUEUE_ROBOT': (QUEUE_ROBOT, 1), 'QUEUE_LEFT': (QUEUE_LEFT, 1), 'QUEUE_RIGHT': (QUEUE_RIGHT, 1)}

# --- outs: int16 (n, OUT_COLUMNS), a tick's readings per due robot ---------------------------
#: The first BARCODE_OUT columns are also World.event's readings.
PROX_OUT = 0  # the PROX_COUNT proximity values
GROUND_OUT = PROX_OUT + PROX_COUNT  # left and right ground values
BARCODE_OUT = GROUND_OUT + PAIR  # the barcode under the reading sensor (-1: none)
OUT_COLUMNS = BARCODE_OUT + 1
OUT_FIELDS = {'PROX_OUT': (PROX_OUT, PROX_COUNT), 'GROUND_OUT': (GROUND_OUT, PAIR), 'BARCODE_OUT': (BARCODE_OUT, 1)}

# --- states: float64 (n, STATE_COLUMNS), a due robot's state right after its event ------------
STATE_POSE = 0
STATE_ODOM = 3
STATE_WHEEL = 6
STATE_COLUMNS = 8
STATE_FIELDS = {'STATE_POSE': (STATE_POSE, POSE_WIDTH), 'STATE_ODOM': (STATE_ODOM, POSE_WIDTH),
                'STATE_WHEEL': (STATE_WHEEL, PAIR)}

# --- the tuples the fused kernels take (build them with the functions below) -----------------
#: fleet: the robots' state.
ROBOTS, ROBOT_INTS, MOVABLE = 0, 1, 2
FLEET_FIELDS = {'ROBOTS': (ROBOTS, 1), 'ROBOT_INTS': (ROBOT_INTS, 1), 'MOVABLE': (MOVABLE, 1)}
#: work: the counters and the log's robots, the log's steps (k, 2), the rays' segments.
INTS, LOG_STEP, SEGMENTS = 0, 1, 2
WORK_FIELDS = {'INTS': (INTS, 1), 'LOG_STEP': (LOG_STEP, 1), 'SEGMENTS': (SEGMENTS, 1)}
#: tables: the map's rasters, tiled (map/tiles.py): the ground sensors' blurred response, the
#: road and blind-area masks of the road truth, the barcodes. DIRECTORIES holds their
#: directories (int32, one row per raster: RESPONSE, ...), the other slots their tiles.
RESPONSE, ROAD_INDEX, BLIND_AREA, BARCODE_INDEX = 0, 1, 2, 3
RASTERS = 4
DIRECTORIES, RESPONSE_TILES, ROAD_TILES, BLIND_TILES, BARCODE_TILES = 0, 1, 2, 3, 4
TABLE_FIELDS = {'DIRECTORIES': (DIRECTORIES, 1), 'RESPONSE_TILES': (RESPONSE_TILES, 1),
                'ROAD_TILES': (ROAD_TILES, 1), 'BLIND_TILES': (BLIND_TILES, 1), 'BARCODE_TILES': (BARCODE_TILES, 1)}
#: io: a tick's queued commands in, readings and states out.
QUEUE, OUTS, STATES = 0, 1, 2
IO_FIELDS = {'QUEUE': (QUEUE, 1), 'OUTS': (OUTS, 1), 'STATES': (STATES, 1)}

#: Each packed array or tuple: its fields and its width (None: its length varies).
PACKED = {'robots': (ROBOT_FIELDS, ROBOT_COLUMNS), 'robot_ints': (ROBOT_INT_FIELDS, ROBOT_INT_COLUMNS),
          'params': (PARAM_FIELDS, PARAMS), 'noise': (NOISE_FIELDS, NOISE_ROWS), 'ints': (INT_FIELDS, LOG),
          'segments': (SEGMENT_FIELDS, SEGMENT_ROWS), 'queue': (QUEUE_FIELDS, QUEUE_COLUMNS),
          'outs': (OUT_FIELDS, OUT_COLUMNS), 'states': (STATE_FIELDS, STATE_COLUMNS),
          'fleet': (FLEET_FIELDS, 3), 'work': (WORK_FIELDS, 3), 'tables': (TABLE_FIELDS, 5),
          'io': (IO_FIELDS, 3)}


def _pack(fields: dict, **arrays) -> tuple:
    """A tuple with each array at its field's slot (so that no caller depends on the order)."""
    slots = [None] * len(fields)
    for name, array in arrays.items():
        slots[fields[name.upper()][0]] = array
    if any(slot is None for slot in slots):
        raise TypeError(f'missing: {[n for n, (k, _) in fields.items() if slots[k] is None]}')
    return tuple(slots)


def fleet(*, robots, robot_ints, movable) -> tuple:
    return _pack(FLEET_FIELDS, robots=robots, robot_ints=robot_ints, movable=movable)


def work(*, ints, log_step, segments) -> tuple:
    return _pack(WORK_FIELDS, ints=ints, log_step=log_step, segments=segments)


def tables(*, directories, response_tiles, road_tiles, blind_tiles, barcode_tiles) -> tuple:
    return _pack(TABLE_FIELDS, directories=directories, response_tiles=response_tiles, road_tiles=road_tiles,
                 blind_tiles=blind_tiles, barcode_tiles=barcode_tiles)


def tiled_tables(*, response, road_index, blind_area, barcode_index) -> tuple:
    """`tables` of the map's tiled rasters (map/tiles.Tiled): their directories stacked, their tiles."""
    directories = np.stack([response.directory, road_index.directory, blind_area.directory, barcode_index.directory])
    return tables(directories=directories, response_tiles=response.tiles, road_tiles=road_index.tiles,
                  blind_tiles=blind_area.tiles, barcode_tiles=barcode_index.tiles)


def io(*, queue, outs, states) -> tuple:
    return _pack(IO_FIELDS, queue=queue, outs=outs, states=states)
