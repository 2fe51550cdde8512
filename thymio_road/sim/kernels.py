"""Compiled kernels of the world's hot paths: motion, broad phase, proximity and ground sensing.

They work on the World's arrays of all robots' state and compute exactly what the numpy code
they replace computed (same formulas in the same order, no fast-math), so a run's values and
its recording are unchanged; test/world_reference.py keeps that code as the oracle. A numpy
call costs about a microsecond whatever its size, and a robot event made dozens of them.
``cache=True``: compiled once per install, then loaded in milliseconds.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from thymio_road.sim import robot_model as rm

AXLE = rm.AXLE_LENGTH
PROX_RANGE = rm.PROX_RANGE
PROX_M = rm.PROX_M
#: The response's numerator and the denominator's linear factor, as the numpy code computed them.
PROX_NUM = rm.PROX_M * (rm.PROX_C - rm.PROX_X0 ** 2)
PROX_2X0 = 2 * rm.PROX_X0
PROX_C = rm.PROX_C
COS_SIDE_RAY = math.cos(float(rm.PROX_RAY_ANGLES[2]))
HULL = np.ascontiguousarray(rm.HULL)
#: (Bounding radius of the hull + 0.1 mm)²: a ray that passes farther from a robot's centre
#: cannot hit its hull (the margin covers the hull's corners and round-off).
HULL_SKIP2 = (float(np.hypot(HULL[:, 0], HULL[:, 1]).max()) + 1e-4) ** 2
GROUND_MAX = rm.GROUND_MAX


@njit(cache=True)
def arc(pose: np.ndarray, vl: float, vr: float, dt: float) -> None:
    """Exact differential-drive motion for constant wheel speeds over dt (in place)."""
    x, y, th = pose[0], pose[1], pose[2]
    v = (vl + vr) / 2.0
    w = (vr - vl) / AXLE
    th2 = th + w * dt
    if abs(w) < 1e-9:
        x += v * dt * math.cos(th)
        y += v * dt * math.sin(th)
    else:
        x += v / w * (math.sin(th2) - math.sin(th))
        y -= v / w * (math.cos(th2) - math.cos(th))
    pose[0] = x
    pose[1] = y
    pose[2] = (th2 + math.pi) % (2 * math.pi) - math.pi


@njit(cache=True)
def move(i: int, t: float, clock: np.ndarray, poses: np.ndarray, odom: np.ndarray, target: np.ndarray,
         odom_scale: np.ndarray, movable: np.ndarray, step: np.ndarray) -> bool:
    """Robot i along its arc to t (instant wheels); its displacement goes to `step`.

    Returns whether it moved: the caller adds the distance with Python's own math.hypot, which
    rounds differently from the C library's in about one case in 170.
    """
    dt = t - clock[i]
    if dt <= 0:
        return False
    clock[i] = t
    if not movable[i]:
        return False
    vl, vr = target[i, 0], target[i, 1]
    if vl == 0.0 and vr == 0.0:
        return False
    x0, y0 = poses[i, 0], poses[i, 1]
    arc(poses[i], vl, vr, dt)
    arc(odom[i], vl * odom_scale[i, 0], vr * odom_scale[i, 1], dt)
    step[0] = poses[i, 0] - x0
    step[1] = poses[i, 1] - y0
    return True


@njit(cache=True)
def within(i: int, poses: np.ndarray, radius2: float, out: np.ndarray) -> int:
    """Robots (i included) whose centre is closer than sqrt(radius2) to robot i's, ascending in out."""
    n = 0
    x, y = poses[i, 0], poses[i, 1]
    for j in range(poses.shape[0]):
        dx = poses[j, 0] - x
        dy = poses[j, 1] - y
        if dx * dx + dy * dy < radius2:
            out[n] = j
            n += 1
    return n


@njit(cache=True)
def close_robots(poses: np.ndarray, radius: float, radius2: float, out: np.ndarray) -> int:
    """Robots with another robot's centre closer than `radius`, ascending in out (sweep and prune).

    Sorted along x, a robot is compared only with those within `radius` in x: no N×N work when
    the robots are spread out.
    """
    n = poses.shape[0]
    order = np.argsort(poses[:, 0], kind='mergesort')
    close = np.zeros(n, dtype=np.bool_)
    for a in range(n):
        ia = order[a]
        for b in range(a + 1, n):
            ib = order[b]
            dx = poses[ia, 0] - poses[ib, 0]
            if -dx >= radius:
                break
            dy = poses[ia, 1] - poses[ib, 1]
            if dx * dx + dy * dy < radius2:
                close[ia] = True
                close[ib] = True
    m = 0
    for j in range(n):
        if close[j]:
            out[m] = j
            m += 1
    return m


@njit(cache=True)
def any_pair_within(poses: np.ndarray, group: np.ndarray, radius2: float) -> bool:
    """Whether two robots of the group have centres closer than sqrt(radius2)."""
    for a in range(len(group)):
        for b in range(a + 1, len(group)):
            dx = poses[group[a], 0] - poses[group[b], 0]
            dy = poses[group[a], 1] - poses[group[b], 1]
            if dx * dx + dy * dy < radius2:
                return True
    return False


@njit(cache=True)
def _response(x: float) -> float:
    """Enki's response for a distance in cm (0 where nothing is hit)."""
    if not math.isfinite(x):
        return 0.0
    return PROX_NUM / (x * x - PROX_2X0 * x + PROX_C)


@njit(cache=True)
def prox_read(i: int, poses: np.ndarray, reach2: float, walls: np.ndarray, local_origins: np.ndarray,
              local_angles: np.ndarray, sigma: float, noise: np.ndarray, at: int, out: np.ndarray) -> bool:
    """Robot i's 7 raw proximity values into out, rays against near hulls and the given walls.

    Returns False (out untouched, no noise used) when nothing is within reach, as ProxSensing.
    """
    n = poses.shape[0]
    return prox_rays(i, poses, reach2, walls, local_origins, local_angles, sigma, noise, at, out,
                     np.empty(n, dtype=np.int64), np.empty((4, walls.shape[0] + n * HULL.shape[0])))


@njit(cache=True)
def prox_rays(i: int, poses: np.ndarray, reach2: float, walls: np.ndarray, local_origins: np.ndarray,
              local_angles: np.ndarray, sigma: float, noise: np.ndarray, at: int, out: np.ndarray,
              near: np.ndarray, segments: np.ndarray) -> bool:
    """:func:`prox_read` with its work arrays given: `near` (n robots), `segments` (4 rows of at
    least walls + n hulls' segments), so that a robot event allocates nothing."""
    n = poses.shape[0]
    x, y, th = poses[i, 0], poses[i, 1], poses[i, 2]
    m = 0
    for j in range(n):
        dx = poses[j, 0] - x
        dy = poses[j, 1] - y
        if dx * dx + dy * dy < reach2 and j != i:
            near[m] = j
            m += 1
    nw = walls.shape[0]
    if m == 0 and nw == 0:
        return False
    k = HULL.shape[0]
    ax = segments[0]
    ay = segments[1]
    bx = segments[2]
    by = segments[3]
    for s in range(nw):
        ax[s], ay[s], bx[s], by[s] = walls[s, 0, 0], walls[s, 0, 1], walls[s, 1, 0], walls[s, 1, 1]
    for q in range(m):
        j = near[q]
        c, s_ = math.cos(poses[j, 2]), math.sin(poses[j, 2])
        base = nw + q * k
        for p in range(k):
            ax[base + p] = poses[j, 0] + c * HULL[p, 0] - s_ * HULL[p, 1]
            ay[base + p] = poses[j, 1] + s_ * HULL[p, 0] + c * HULL[p, 1]
        for p in range(k):
            nxt = (p + 1) % k
            bx[base + p], by[base + p] = ax[base + nxt], ay[base + nxt]
    c, s_ = math.cos(th), math.sin(th)
    f0 = 0.0
    f1 = 0.0
    f2 = 0.0
    for q in range(7):
        value = 0.0
        slant = 0.0
        for ray in range(3):
            r = 3 * q + ray
            best = _ray(x, y, c, s_, local_origins[r, 0], local_origins[r, 1], local_angles[r] + th, poses,
                        near, m, nw, k, ax, ay, bx, by)
            if ray == 0:
                f0 = _response(best * 100.0)
            elif ray == 1:
                f1 = _response(best * 100.0)
                slant = _response(best / COS_SIDE_RAY * 100.0)
            else:
                f2 = _response(best * 100.0)
        value = f0 + f1 + f2 - 2.0 * slant
        seen = value > 0
        value = value + sigma * noise[at + q]
        if seen:
            out[q] = np.int16(np.rint(min(max(value, 0.0), PROX_M)))
        else:
            out[q] = 0
    return True


@njit(cache=True)
def _ray(x: float, y: float, c: float, s_: float, lx: float, ly: float, ang: float, poses: np.ndarray,
         near: np.ndarray, m: int, nw: int, k: int, ax: np.ndarray, ay: np.ndarray, bx: np.ndarray,
         by: np.ndarray) -> float:
    """Distance along one ray to the nearest wall or near hull (inf: none within range)."""
    ox = x + c * lx - s_ * ly
    oy = y + s_ * lx + c * ly
    dx, dy = math.cos(ang), math.sin(ang)
    best = np.inf
    for q in range(-1, m):
        if q < 0:  # the walls
            first, last = 0, nw
        else:
            # A hull farther from the ray than its bounding radius cannot be hit: its
            # segments are skipped (the nearest hit, the minimum, is the same).
            cx = poses[near[q], 0] - ox
            cy = poses[near[q], 1] - oy
            along = min(max(cx * dx + cy * dy, 0.0), PROX_RANGE)
            gx = cx - along * dx
            gy = cy - along * dy
            if gx * gx + gy * gy > HULL_SKIP2:
                continue
            first = nw + q * k
            last = first + k
        for s in range(first, last):
            ex = bx[s] - ax[s]
            ey = by[s] - ay[s]
            wx = ax[s] - ox
            wy = ay[s] - oy
            denom = dx * ey - dy * ex
            if abs(denom) > 1e-12:
                tt = (wx * ey - wy * ex) / denom
                u = (wx * dy - wy * dx) / denom
                if tt >= 0 and tt <= PROX_RANGE and u >= 0 and u <= 1 and tt < best:
                    best = tt
    return best


@njit(cache=True)
def ground_pair(x: float, y: float, th: float, response: np.ndarray, resolution: float,
                sensors: np.ndarray, sigma: float, n0: float, n1: float) -> tuple[int, int]:
    """(left, right) raw ground values: one look-up each in the blurred response, then noise."""
    rows, cols = response.shape
    c, s = math.cos(th), math.sin(th)
    out0 = 0
    out1 = 0
    for k in range(2):
        gx, gy = sensors[k, 0], sensors[k, 1]
        px = x + c * gx - s * gy
        py = y + s * gx + c * gy
        r = min(max(int(py / resolution), 0), rows - 1)
        col = min(max(int(px / resolution), 0), cols - 1)
        value = np.float64(response[r, col]) + sigma * (n0 if k == 0 else n1)
        v = min(max(int(np.rint(value)), 0), GROUND_MAX)
        if k == 0:
            out0 = v
        else:
            out1 = v
    return out0, out1


@njit(cache=True)
def wheel_speed(units: int) -> float:
    """robot_model.wheel_speed_scalar, compiled (the same operations)."""
    mag = min(abs(units), rm.MOTOR_UNITS_MAX)
    if mag <= rm.PLATEAU_START_UNITS:
        speed = rm.SPEED_PER_UNIT * mag
    else:
        knee = rm.SPEED_PER_UNIT * rm.PLATEAU_START_UNITS
        speed = knee + (rm.PLATEAU_SPEED - knee) * (mag - rm.PLATEAU_START_UNITS) / (
            rm.MOTOR_UNITS_MAX - rm.PLATEAU_START_UNITS)
    return math.copysign(speed, units) if units else 0.0


@njit(cache=True)
def command(i: int, left: int, right: int, nl: float, nr: float, sigma: float, gain: np.ndarray,
            targets: np.ndarray, target: np.ndarray, wheel: np.ndarray, instant: bool) -> None:
    """Robot i's motor targets: the motor law, the robot's gains and this command's noise."""
    targets[i, 0] = left
    targets[i, 1] = right
    target[i, 0] = wheel_speed(left) * gain[i, 0] * (1.0 + sigma * nl)
    target[i, 1] = wheel_speed(right) * gain[i, 1] * (1.0 + sigma * nr)
    if instant:
        wheel[i, 0] = target[i, 0]
        wheel[i, 1] = target[i, 1]


@njit(cache=True)
def _pixel(x: float, y: float, th: float, gx: float, gy: float, resolution: float, rows: int, cols: int
           ) -> tuple[int, int]:
    c, s = math.cos(th), math.sin(th)
    px = x + c * gx - s * gy
    py = y + s * gx + c * gy
    return min(max(int(py / resolution), 0), rows - 1), min(max(int(px / resolution), 0), cols - 1)


@njit(cache=True)
def road_truth(i: int, poses: np.ndarray, road_index: np.ndarray, blind_area: np.ndarray,
               barcode_index: np.ndarray, resolution: float, sensors: np.ndarray, period: float,
               loss_time: float, time_sensed: np.ndarray, time_on_road: np.ndarray,
               off_road_for: np.ndarray, road_losses: np.ndarray) -> int:
    """Ground truth at robot i's event: road keeping under the follow sensor (time on road, losses);
    returns the barcode under the reading sensor (-1: none), which the same pose gives."""
    rows, cols = road_index.shape
    x, y, th = poses[i, 0], poses[i, 1], poses[i, 2]
    r, col = _pixel(x, y, th, sensors[0, 0], sensors[0, 1], resolution, rows, cols)
    on = road_index[r, col] >= 0 or blind_area[r, col]
    time_sensed[i] += period
    off = off_road_for[i]
    if on:
        time_on_road[i] += period
        off_road_for[i] = 0.0
    else:
        if off < loss_time and loss_time <= off + period + 1e-9:
            road_losses[i] += 1
        off_road_for[i] = off + period
    r, col = _pixel(x, y, th, sensors[1, 0], sensors[1, 1], resolution, rows, cols)
    return int(barcode_index[r, col])


# --- the fused robot event: one compiled call instead of six ------------------------------------
#
# A robot event (World.event) was a move, a neighbour search, the neighbours' moves, the
# proximity rays, the ground sensors and the road truth: six kernel calls and their Python glue.
# These kernels do them in one call, drawing the noise from the streams' buffers (NoiseStream's
# buffer and cursor) and logging each displacement for the distance travelled, which World sums
# later with Python's math.hypot in the same order. A kernel that lacks room in a noise buffer
# or in the log returns NEED_ROOM before it changes anything, so the caller refills and calls
# again; one that finds two hulls that may touch stops after the moves (NEED_RESOLVE), since
# contact resolution is Python (sim/collision.py), and the caller finishes with :func:`sense`.

#: Returned when a noise buffer or the displacement log lacks room: nothing was done.
NEED_ROOM = -100
#: Returned by :func:`event` when the moved group must have its contacts resolved before sensing.
NEED_RESOLVE = -101


@njit(cache=True)
def move_logged(i: int, t: float, clock: np.ndarray, poses: np.ndarray, odom: np.ndarray,
                target: np.ndarray, odom_scale: np.ndarray, movable: np.ndarray, io: np.ndarray,
                log_robot: np.ndarray, log_step: np.ndarray) -> None:
    """:func:`move`, its displacement appended to the log (io[0] entries) instead of returned."""
    k = io[0]
    if move(i, t, clock, poses, odom, target, odom_scale, movable, log_step[k]):
        log_robot[k] = i
        io[0] = k + 1


@njit(cache=True)
def move_group_logged(group: np.ndarray, m: int, t: float, clock: np.ndarray, poses: np.ndarray,
                      odom: np.ndarray, target: np.ndarray, odom_scale: np.ndarray, movable: np.ndarray,
                      io: np.ndarray, log_robot: np.ndarray, log_step: np.ndarray) -> bool:
    """:func:`move_logged` for the group's first m robots; NEED_ROOM's check first (False)."""
    if io[0] + m > log_robot.shape[0]:
        return False
    for k in range(m):
        move_logged(group[k], t, clock, poses, odom, target, odom_scale, movable, io, log_robot, log_step)
    return True


@njit(cache=True)
def sense(i: int, out: np.ndarray, walls: np.ndarray, near: np.ndarray, segments: np.ndarray, poses: np.ndarray,
          prox_reach2: float, local_origins: np.ndarray,
          local_angles: np.ndarray, prox_sigma: float, prox_noise: np.ndarray, prox_at: np.ndarray,
          response: np.ndarray, resolution: float, ground_sensors: np.ndarray, ground_sigma: float,
          ground_noise: np.ndarray, ground_at: np.ndarray, road_index: np.ndarray, blind_area: np.ndarray,
          barcode_index: np.ndarray, period: float, loss_time: float, time_sensed: np.ndarray,
          time_on_road: np.ndarray, off_road_for: np.ndarray, road_losses: np.ndarray) -> int:
    """Robot i's readings (out[:7] proximity, out[7:9] ground) and road truth; returns the barcode
    under the reading sensor (-1: none), or NEED_ROOM when a noise buffer lacks samples."""
    if prox_at[0] + 7 > prox_noise.shape[0] or ground_at[0] + 2 > ground_noise.shape[0]:
        return NEED_ROOM
    if prox_rays(i, poses, prox_reach2, walls, local_origins, local_angles, prox_sigma, prox_noise,
                 prox_at[0], out[:7], near, segments):
        prox_at[0] += 7
    else:
        for q in range(7):
            out[q] = 0
    k = ground_at[0]
    g0, g1 = ground_pair(poses[i, 0], poses[i, 1], poses[i, 2], response, resolution, ground_sensors,
                         ground_sigma, ground_noise[k], ground_noise[k + 1])
    ground_at[0] = k + 2
    out[7] = g0
    out[8] = g1
    return road_truth(i, poses, road_index, blind_area, barcode_index, resolution, ground_sensors, period,
                      loss_time, time_sensed, time_on_road, off_road_for, road_losses)


@njit(cache=True)
def event(i: int, t: float, out: np.ndarray, clock: np.ndarray, poses: np.ndarray, odom: np.ndarray,
          target: np.ndarray,
          odom_scale: np.ndarray, movable: np.ndarray, io: np.ndarray, log_robot: np.ndarray,
          log_step: np.ndarray, group: np.ndarray, sense_r2: float, hull_reach2: float,
          walls: np.ndarray, near: np.ndarray, segments: np.ndarray, prox_reach2: float, local_origins: np.ndarray,
          local_angles: np.ndarray, prox_sigma: float, prox_noise: np.ndarray, prox_at: np.ndarray,
          response: np.ndarray, resolution: float, ground_sensors: np.ndarray, ground_sigma: float,
          ground_noise: np.ndarray, ground_at: np.ndarray, road_index: np.ndarray, blind_area: np.ndarray,
          barcode_index: np.ndarray, period: float, loss_time: float, time_sensed: np.ndarray,
          time_on_road: np.ndarray, off_road_for: np.ndarray, road_losses: np.ndarray) -> int:
    """A robot event on a map without walls: World.sync, then :func:`sense`.

    Returns sense's value; NEED_ROOM (nothing done); or NEED_RESOLVE, the robots moved and the
    group (io[1] robots in `group`) left for the caller to resolve before it calls sense.
    """
    n = poses.shape[0]
    if (io[0] + n + 1 > log_robot.shape[0] or prox_at[0] + 7 > prox_noise.shape[0]
            or ground_at[0] + 2 > ground_noise.shape[0]):
        return NEED_ROOM
    move_logged(i, t, clock, poses, odom, target, odom_scale, movable, io, log_robot, log_step)
    m = within(i, poses, sense_r2, group)
    io[1] = m
    if m > 1:
        for k in range(m):
            move_logged(group[k], t, clock, poses, odom, target, odom_scale, movable, io, log_robot, log_step)
        if any_pair_within(poses, group[:m], hull_reach2):
            return NEED_RESOLVE
    return sense(i, out, walls, near, segments, poses, prox_reach2, local_origins, local_angles, prox_sigma,
                 prox_noise, prox_at,
                 response, resolution, ground_sensors, ground_sigma, ground_noise, ground_at, road_index,
                 blind_area, barcode_index, period, loss_time, time_sensed, time_on_road, off_road_for,
                 road_losses)


@njit(cache=True)
def command_at(i: int, t: float, left: int, right: int, motor_noise: np.ndarray, motor_at: np.ndarray,
               sigma: float, gain: np.ndarray, targets: np.ndarray, target: np.ndarray, wheel: np.ndarray,
               clock: np.ndarray, poses: np.ndarray, odom: np.ndarray, odom_scale: np.ndarray,
               movable: np.ndarray, io: np.ndarray, log_robot: np.ndarray, log_step: np.ndarray) -> bool:
    """World.command with instant wheels: robot i moved to t, then its new targets with this
    command's motor noise. False (nothing done) when the noise buffer or the log lacks room."""
    if io[0] + 1 > log_robot.shape[0] or motor_at[0] + 2 > motor_noise.shape[0]:
        return False
    if not movable[i]:
        return True
    move_logged(i, t, clock, poses, odom, target, odom_scale, movable, io, log_robot, log_step)
    k = motor_at[0]
    motor_at[0] = k + 2
    command(i, left, right, motor_noise[k], motor_noise[k + 1], sigma, gain, targets, target, wheel, True)
    return True


#: World.tick's kernel stopped for the contacts of the tick's contact pass (io[2]), or before a
#: queued command whose motor noise needs a refill.
SETTLE_RESOLVE = -102
NEED_MOTOR_ROOM = -103


@njit(cache=True)
def tick(t: float, settle: bool, start: int, due: np.ndarray, outs: np.ndarray, states: np.ndarray,
         queue: np.ndarray, queued: int, motor_noise: np.ndarray, motor_at: np.ndarray, motor_sigma: float,
         gain: np.ndarray, targets: np.ndarray, touch_radius: float, touch_radius2: float, wheel: np.ndarray,
         clock: np.ndarray, poses: np.ndarray, odom: np.ndarray, target: np.ndarray,
         odom_scale: np.ndarray, movable: np.ndarray, io: np.ndarray, log_robot: np.ndarray,
         log_step: np.ndarray, group: np.ndarray, sense_r2: float, hull_reach2: float,
         walls: np.ndarray, near: np.ndarray, segments: np.ndarray, prox_reach2: float, local_origins: np.ndarray,
         local_angles: np.ndarray, prox_sigma: float, prox_noise: np.ndarray, prox_at: np.ndarray,
         response: np.ndarray, resolution: float, ground_sensors: np.ndarray, ground_sigma: float,
         ground_noise: np.ndarray, ground_at: np.ndarray, road_index: np.ndarray, blind_area: np.ndarray,
         barcode_index: np.ndarray, period: float, loss_time: float, time_sensed: np.ndarray,
         time_on_road: np.ndarray, off_road_for: np.ndarray, road_losses: np.ndarray) -> int:
    """A world tick on a map without walls: the contact pass (`settle`, World.settle_contacts),
    then :func:`event` for due[start:], each robot's readings into outs[k, :9], the barcode under
    its reading sensor into outs[k, 9] and its state right after its event (pose, odometry,
    wheel speeds) into states[k].

    Returns -1 when done, else where it stopped in `due`, and io[2] says why: NEED_ROOM (nothing
    done at that point), SETTLE_RESOLVE (the pass's group, io[1] robots in `group`, has contacts
    to resolve) or NEED_RESOLVE (that robot's event did; sense it after). io[3] is 1 once the
    pass is done.
    """
    n = poses.shape[0]
    io[3] = 0 if settle else 1
    # The commands given since the last tick (World.command_soon), in order, from io[7] on: each
    # is World.command at the robot's own clock (no move), with its motor noise.
    for q in range(io[7], queued):
        i = queue[q, 0]
        if movable[i]:
            if motor_at[0] + 2 > motor_noise.shape[0]:
                io[7] = q
                io[2] = NEED_MOTOR_ROOM
                return start
            k = motor_at[0]
            motor_at[0] = k + 2
            command(i, queue[q, 1], queue[q, 2], motor_noise[k], motor_noise[k + 1], motor_sigma, gain, targets,
                    target, wheel, True)
        io[7] = q + 1
    if settle:
        if io[0] + n > log_robot.shape[0]:
            io[2] = NEED_ROOM
            return start
        if n >= 2:
            m = close_robots(poses, touch_radius, touch_radius2, group)
            if m > 0:
                for k in range(m):
                    move_logged(group[k], t, clock, poses, odom, target, odom_scale, movable, io, log_robot,
                                log_step)
                if any_pair_within(poses, group[:m], hull_reach2):
                    io[1] = m
                    io[2] = SETTLE_RESOLVE
                    io[3] = 1
                    return start
        io[3] = 1
    for k in range(start, len(due)):
        i = due[k]
        r = event(i, t, outs[k], clock, poses, odom, target, odom_scale, movable, io, log_robot, log_step,
                  group, sense_r2, hull_reach2, walls, near, segments, prox_reach2, local_origins, local_angles,
                  prox_sigma, prox_noise, prox_at, response, resolution, ground_sensors, ground_sigma, ground_noise,
                  ground_at, road_index, blind_area, barcode_index, period, loss_time, time_sensed,
                  time_on_road, off_road_for, road_losses)
        if r == NEED_ROOM or r == NEED_RESOLVE:
            io[2] = r
            return k
        outs[k, 9] = r
        state(i, poses, odom, wheel, states[k])
    return -1


@njit(cache=True)
def state(i: int, poses: np.ndarray, odom: np.ndarray, wheel: np.ndarray, out: np.ndarray) -> None:
    """Robot i's pose, odometry pose and wheel speeds into out (8 values)."""
    for c in range(3):
        out[c] = poses[i, c]
        out[3 + c] = odom[i, c]
    out[6] = wheel[i, 0]
    out[7] = wheel[i, 1]


# --- packed arguments: a numba call costs about 50 ns per array argument ------------------------
#
# The World keeps its robots' float state in one (n, ROBOT_COLUMNS) array and the kernels'
# integers in one array (its attributes are views of them), so that the per-tick and per-command
# kernels take a few arrays instead of thirty; the constants of the model are globals here.

#: Columns [a, b) of the World's robot array.
ROBOT_FIELDS = {'poses': (0, 3), 'odom': (3, 6), 'target': (6, 8), 'wheel': (8, 10), 'odom_scale': (10, 12),
                'clock': (12, 13), 'time_sensed': (13, 14), 'time_on_road': (14, 15), 'off_road_for': (15, 16)}
ROBOT_COLUMNS = 16
#: The integers array: the counters (io), the group, the near robots, the displacement log's robots;
#: the noise streams' cursors (ground, proximity, motor) are io[CURSORS:CURSORS + 3].
INTS = 8
CURSORS = 4
#: The floats array: the World's constants the kernels use.
FLOAT_INDEX = {name: k for k, name in enumerate(
    ('touch_radius', 'touch_radius2', 'sense_r2', 'hull_reach2', 'prox_reach2', 'prox_sigma', 'resolution',
     'ground_sigma', 'period', 'loss_time', 'motor_sigma'))}
FLOATS = len(FLOAT_INDEX)
#: The model's constant arrays, as ProxSensing and World hold them.
PROX_ORIGINS = np.ascontiguousarray(np.repeat(rm.PROX_SENSORS[:, :2], 3, axis=0))
PROX_ANGLES = np.ascontiguousarray((rm.PROX_SENSORS[:, 2][:, None] + rm.PROX_RAY_ANGLES[None, :]).reshape(-1))
GROUND_SENSORS = np.ascontiguousarray(rm.GROUND_SENSORS, dtype=float)
NO_WALLS = np.zeros((0, 2, 2))


@njit(cache=True)
def tick_packed(t: float, settle: bool, start: int, due: np.ndarray, outs: np.ndarray, states: np.ndarray,
                queue: np.ndarray, queued: int, gain: np.ndarray, targets: np.ndarray, floats: np.ndarray,
                robots: np.ndarray, ints: np.ndarray, noise: np.ndarray, movable: np.ndarray,
                road_losses: np.ndarray, log_step: np.ndarray, segments: np.ndarray, response: np.ndarray,
                road_index: np.ndarray, blind_area: np.ndarray, barcode_index: np.ndarray) -> int:
    """:func:`tick` on the World's packed arrays (a map without walls)."""
    n = robots.shape[0]
    return tick(t, settle, start, due, outs, states, queue, queued, noise[2], ints[CURSORS + 2:CURSORS + 3],
                floats[10], gain, targets, floats[0], floats[1], robots[:, 8:10],
                robots[:, 12], robots[:, 0:3], robots[:, 3:6], robots[:, 6:8], robots[:, 10:12], movable,
                ints[:INTS], ints[INTS + 2 * n:], log_step, ints[INTS:INTS + n], floats[2], floats[3], NO_WALLS,
                ints[INTS + n:INTS + 2 * n], segments, floats[4], PROX_ORIGINS, PROX_ANGLES, floats[5], noise[1],
                ints[CURSORS + 1:CURSORS + 2],
                response, floats[6], GROUND_SENSORS, floats[7], noise[0], ints[CURSORS:CURSORS + 1], road_index,
                blind_area, barcode_index, floats[8], floats[9], robots[:, 13], robots[:, 14], robots[:, 15],
                road_losses)


@njit(cache=True)
def command_packed(i: int, t: float, left: int, right: int, floats: np.ndarray, robots: np.ndarray,
                   ints: np.ndarray, noise: np.ndarray, movable: np.ndarray, log_step: np.ndarray,
                   gain: np.ndarray, targets: np.ndarray) -> bool:
    """:func:`command_at` on the World's packed arrays."""
    n = robots.shape[0]
    return command_at(i, t, left, right, noise[2], ints[CURSORS + 2:CURSORS + 3], floats[10], gain, targets,
                      robots[:, 6:8], robots[:, 8:10], robots[:, 12], robots[:, 0:3], robots[:, 3:6],
                      robots[:, 10:12], movable, ints[:INTS], ints[INTS + 2 * n:], log_step)
