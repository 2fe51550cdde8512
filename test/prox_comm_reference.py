# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The numpy IR medium that `swarm_comm.prox_comm` replaced with a compiled kernel: the tests' reference.

Kept as it was (issue #15): :class:`ReferenceChannel` is the former ``ProxCommChannel`` (k-d tree pairs
and occluders, vectorised numpy), :func:`naive_step` the former all-pairs model. The tests check the
compiled step against both, and ``benchmarks/bench_ir_medium.py`` times the old path beside the new
one. Not used in production.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.spatial import cKDTree

from swarm_comm.prox_comm import _check_gains, _check_inputs, ENKI_DOC, ProxCommParams, Receptions, SENSOR_COUNT
from thymio_road.sim import robot_model as rm


def sensor_frames(poses: np.ndarray, sensors: np.ndarray = rm.PROX_SENSORS) -> tuple[np.ndarray, np.ndarray]:
    """The former numpy ``prox_comm.sensor_frames`` (now compiled): positions and directions (n×7×2)."""
    c, s = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
    x = poses[:, 0:1] + c * sensors[None, :, 0] - s * sensors[None, :, 1]
    y = poses[:, 1:2] + s * sensors[None, :, 0] + c * sensors[None, :, 1]
    ang = poses[:, 2:3] + sensors[None, :, 2]
    return np.stack([x, y], axis=-1), np.stack([np.cos(ang), np.sin(ang)], axis=-1)


def _hull_normals(hull: np.ndarray) -> np.ndarray:
    """Outward normals of a counter-clockwise polygon's edges (edge k from vertex k to k+1)."""
    edges = np.roll(hull, -1, axis=0) - hull
    return np.column_stack([edges[:, 1], -edges[:, 0]])


def segments_hit_hulls(a: np.ndarray, b: np.ndarray, centre: np.ndarray, yaw: np.ndarray,
                       hull: np.ndarray = rm.HULL) -> np.ndarray:
    """Whether segment a→b (s×2) meets the convex hull placed at (centre, yaw) (s×2, s), per row.

    Parametric clipping against the hull's half-planes: the segment meets the polygon iff the
    latest entering parameter is below the earliest leaving one. The test is done in the
    hull's frame, so only the segments are transformed.
    """
    if len(a) == 0:
        return np.zeros(0, dtype=bool)
    c, s = np.cos(yaw)[:, None], np.sin(yaw)[:, None]

    def local(p: np.ndarray) -> np.ndarray:
        q = p - centre
        return np.stack([c[:, 0] * q[:, 0] + s[:, 0] * q[:, 1], -s[:, 0] * q[:, 0] + c[:, 0] * q[:, 1]], axis=-1)

    la, lb = local(a), local(b)
    normals = _hull_normals(hull)  # (K, 2)
    # Inside edge k: n_k·(x − v_k) <= 0.  With x = a + t(b − a): num_k + t·den_k <= 0.
    num = la @ normals.T - (normals * hull).sum(axis=1)[None, :]  # (s, K)
    den = (lb - la) @ normals.T
    with np.errstate(divide='ignore', invalid='ignore'):
        t = -num / den
    entering = den < 0
    leaving = den > 0
    t_enter = np.max(np.where(entering, t, 0.0), axis=1, initial=0.0)
    t_leave = np.min(np.where(leaving, t, 1.0), axis=1, initial=1.0)
    parallel_outside = np.any((den == 0) & (num > 0), axis=1)
    return (t_enter < t_leave) & ~parallel_outside


def segments_hit_walls(a: np.ndarray, b: np.ndarray, walls: np.ndarray) -> np.ndarray:
    """Whether segment a→b (s×2) crosses any wall segment (w×2×2), per row."""
    if len(a) == 0 or walls is None or len(walls) == 0:
        return np.zeros(len(a), dtype=bool)
    d = (b - a)[:, None, :]  # (s, 1, 2)
    e = (walls[:, 1] - walls[:, 0])[None, :, :]  # (1, w, 2)
    w = walls[None, :, 0, :] - a[:, None, :]  # (s, w, 2)
    den = d[..., 0] * e[..., 1] - d[..., 1] * e[..., 0]
    with np.errstate(divide='ignore', invalid='ignore'):
        t = (w[..., 0] * e[..., 1] - w[..., 1] * e[..., 0]) / den
        u = (w[..., 0] * d[..., 1] - w[..., 1] * d[..., 0]) / den
    hit = (den != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
    return hit.any(axis=1)


class ReferenceChannel:
    """One medium step: every transmitting robot's payload to every robot that can hear it."""

    def __init__(self, params: ProxCommParams = ENKI_DOC, walls: np.ndarray | None = None,
                 sensors: np.ndarray = rm.PROX_SENSORS, hull: np.ndarray = rm.HULL) -> None:
        self.params = params
        self.walls = np.zeros((0, 2, 2)) if walls is None else np.asarray(walls, dtype=float).reshape(-1, 2, 2)
        self.sensors = np.asarray(sensors, dtype=float)
        self.hull = np.asarray(hull, dtype=float)
        if self.sensors.shape != (SENSOR_COUNT, 3):
            raise ValueError(f'sensors must be 7 rows of (x, y, angle), got shape {self.sensors.shape}')
        #: Sensors and hull lie within these radii of the robot's origin (pruning bounds, m).
        self.sensor_radius = float(np.hypot(self.sensors[:, 0], self.sensors[:, 1]).max())
        self.hull_radius = float(np.hypot(self.hull[:, 0], self.hull[:, 1]).max())
        self.cos_e = math.cos(params.emitter_aperture)
        self.cos_r = math.cos(params.receiver_aperture)
        self.threshold = params.min_response

    # The per-path model, shared by the pruned and the naive step so both compute the same numbers.
    def _visibility(self, pe: np.ndarray, ue: np.ndarray, pr: np.ndarray, ur: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Criteria 1–3 for paths from LEDs (k×2 positions, unit directions) to sensors (k×2).

        Returns the mask of visible paths and, for those only, d (m), cos α_e and cos α_r.
        The mask needs no square root: d² < ρ², and cos α ≥ cos β as v·u > 0 and
        (v·u)² ≥ cos²β · d².
        """
        vx = pr[:, 0] - pe[:, 0]
        vy = pr[:, 1] - pe[:, 1]
        d2 = vx * vx + vy * vy
        de = vx * ue[:, 0] + vy * ue[:, 1]
        dr = -(vx * ur[:, 0] + vy * ur[:, 1])
        mask = (d2 < self.params.range_m ** 2) & (de > 0) & (de * de >= self.cos_e ** 2 * d2)
        mask &= (dr > 0) & (dr * dr >= self.cos_r ** 2 * d2)
        d = np.sqrt(d2[mask])
        return mask, d, de[mask] / d, dr[mask] / d

    def _may_see(self, origin: np.ndarray, direction: np.ndarray, centre: np.ndarray,
                 aperture: float) -> np.ndarray:
        """Whether a sensor (p×7×2) may see any sensor of the robot at `centre` (p×2).

        A conservative test: the other robot's sensors lie in the disc of radius R (the sensors'
        radius) around its centre, so the sector is widened by the disc's angular radius γ,
        sin γ = R/|w|, and the range by R. It only prunes; the exact test follows. Written as
        w·u ≥ |w| cos(β + γ) = cos β · √(|w|² − R²) − sin β · R, with one square root.
        """
        wx = centre[:, 0, None] - origin[..., 0]
        wy = centre[:, 1, None] - origin[..., 1]
        dist2 = wx * wx + wy * wy
        r2 = self.sensor_radius ** 2
        near = dist2 < (self.params.range_m + self.sensor_radius) ** 2 + 1e-9
        dot = wx * direction[..., 0] + wy * direction[..., 1]
        bound = math.cos(aperture) * np.sqrt(np.maximum(dist2 - r2, 0.0)) - math.sin(aperture) * self.sensor_radius
        return near & ((dist2 <= r2) | (dot >= bound - 1e-9))

    def _contributions(self, d: np.ndarray, cos_e: np.ndarray, cos_r: np.ndarray) -> np.ndarray:
        """The term w / (d − x0)² per visible emitter→sensor path (d in m, the law in cm)."""
        p = self.params
        dx = np.maximum(d * 100.0 - p.x0, 1e-9)
        w = 1.0
        if p.ke:
            w = w * np.maximum(cos_e, 0.0) ** p.ke
        if p.kr:
            w = w * np.maximum(cos_r, 0.0) ** p.kr
        return w / (dx * dx)

    def _intensities(self, sums: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        """Integer intensities (…×7) from the summed inverse squares: law, noise, threshold."""
        p = self.params
        r = p.response(sums)
        received = r >= self.threshold
        if p.noise and rng is not None and r.size:
            r = np.clip(r + rng.normal(0.0, p.noise, r.shape), 0.0, p.m)
            received &= r >= self.threshold
        # Enki stores intensities as int: truncation.
        return np.where(received, np.floor(r), 0).astype(np.int64)

    def _blocked(self, a: np.ndarray, b: np.ndarray, owners: tuple[np.ndarray, np.ndarray],
                 seg_occ: np.ndarray, seg_idx: np.ndarray, poses: np.ndarray) -> np.ndarray:
        """Which segments (a→b) are blocked by their candidate occluders (seg_idx, seg_occ) or walls."""
        blocked = np.zeros(len(a), dtype=bool)
        keep = (seg_occ != owners[0][seg_idx]) & (seg_occ != owners[1][seg_idx])
        seg_idx, seg_occ = seg_idx[keep], seg_occ[keep]
        if len(seg_idx):
            # Broad phase: the occluder's bounding circle must come within reach of the segment.
            sa, sb, oc = a[seg_idx], b[seg_idx], poses[seg_occ, :2]
            ab = sb - sa
            t = np.clip(((oc - sa) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-18), 0.0, 1.0)
            near = ((sa + t[:, None] * ab - oc) ** 2).sum(axis=1) <= self.hull_radius ** 2
            seg_idx, seg_occ = seg_idx[near], seg_occ[near]
            hit = segments_hit_hulls(a[seg_idx], b[seg_idx], poses[seg_occ, :2], poses[seg_occ, 2], self.hull)
            blocked[seg_idx[hit]] = True
        if len(self.walls):
            open_ = np.flatnonzero(~blocked)
            blocked[open_] = segments_hit_walls(a[open_], b[open_], self.walls)
        return blocked

    def step(self, poses: np.ndarray, transmitters: np.ndarray, payloads: np.ndarray,
             receivers: np.ndarray | None = None, rng: np.random.Generator | None = None,
             gains: np.ndarray | None = None) -> Receptions:
        """Who receives what when `transmitters` (robot indices) send `payloads` from `poses` (n×3).

        `receivers` is the mask of robots with communication enabled (default: all). A robot
        does not hear itself. `rng` draws the intensity noise when the model has some; it is
        drawn in row order, so a seeded generator makes the step deterministic. `gains` (n,
        default all 1) scales each robot's emitted intensity (a weak battery): every LED
        contribution w/(d − x0)² of robot k is multiplied by gains[k]. With the documented
        threshold this shrinks the range to x0 + √g·(ρ − x0); a gain above 1 cannot reach
        beyond ρ (criterion 1 still applies).
        """
        poses, tx, pay, rx_mask = _check_inputs(poses, transmitters, payloads, receivers)
        gain = _check_gains(gains, len(poses))
        rx_idx = np.flatnonzero(rx_mask)
        if len(tx) == 0 or len(rx_idx) == 0:
            return Receptions.empty()
        pos, dirs = sensor_frames(poses, self.sensors)
        reach = self.params.range_m + 2 * self.sensor_radius
        # Robot pairs whose sensors might be within ρ.
        pairs = cKDTree(poses[tx, :2]).sparse_distance_matrix(cKDTree(poses[rx_idx, :2]), reach,
                                                              output_type='ndarray')
        k = np.flatnonzero(tx[pairs['i']] != rx_idx[pairs['j']])
        pt, pr = tx[pairs['i'][k]], rx_idx[pairs['j'][k]]
        pp = pay[pairs['i'][k]]
        order = np.lexsort((pr, pt))
        pt, pr, pp = pt[order], pr[order], pp[order]
        # Prune (pair, LED, sensor) triples with two conservative per-sensor tests, then the exact one.
        may_emit = self._may_see(pos[pt], dirs[pt], poses[pr, :2], self.params.emitter_aperture)
        pi, ei = np.nonzero(may_emit)
        with_led = np.unique(pi)
        may_receive = np.zeros(may_emit.shape, dtype=bool)
        may_receive[with_led] = self._may_see(pos[pr[with_led]], dirs[pr[with_led]], poses[pt[with_led], :2],
                                              self.params.receiver_aperture)
        row, si = np.nonzero(may_receive[pi])
        pi, ei = pi[row], ei[row]
        visible, d, cos_e, cos_r = self._visibility(pos[pt[pi], ei], dirs[pt[pi], ei],
                                                    pos[pr[pi], si], dirs[pr[pi], si])
        pi, ei, si = pi[visible], ei[visible], si[visible]
        if len(pi) == 0:
            return Receptions.empty()
        a, b = pos[pt[pi], ei], pos[pr[pi], si]
        # Occluder candidates per robot pair with a visible path: robots near the pair's centres.
        pairs_v = np.unique(pi)
        ca, cb = poses[pt[pairs_v], :2], poses[pr[pairs_v], :2]
        radius = np.hypot(*(cb - ca).T) / 2 + self.sensor_radius + self.hull_radius
        lists = cKDTree(poses[:, :2]).query_ball_point((ca + cb) / 2, radius, return_sorted=False)
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        occ = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64, count=int(counts.sum()))
        occ_pair = np.repeat(pairs_v, counts)
        # Join (pair, occluder) with the pair's segments (np.nonzero sorts segments by pair).
        seg_start = np.searchsorted(pi, occ_pair)
        seg_count = np.searchsorted(pi, occ_pair, side='right') - seg_start
        seg_occ = np.repeat(occ, seg_count)
        offsets = np.arange(int(seg_count.sum())) - np.repeat(np.cumsum(seg_count) - seg_count, seg_count)
        seg_idx = np.repeat(seg_start, seg_count) + offsets
        open_ = ~self._blocked(a, b, (pt[pi], pr[pi]), seg_occ, seg_idx, poses)
        contrib = self._contributions(d[open_], cos_e[open_], cos_r[open_])
        if gain is not None:
            contrib = contrib * gain[pt[pi[open_]]]
        return self._receptions(pt, pr, pp, (pi[open_], ei[open_], si[open_]), contrib, rng)

    def _receptions(self, pt: np.ndarray, pr: np.ndarray, pp: np.ndarray,
                    paths: tuple[np.ndarray, np.ndarray, np.ndarray], contrib: np.ndarray,
                    rng: np.random.Generator | None) -> Receptions:
        """Rows from the open paths (pair, emitter, sensor) and their contributions.

        Pairs (pt, pr) are sorted by transmitter, then receiver, and paths by pair then emitter,
        so the sums are taken in one order whichever step computed them.
        """
        pi, ei, si = paths
        heard, row = np.unique(pi, return_inverse=True)
        sums = np.bincount(row * SENSOR_COUNT + si, weights=contrib,
                           minlength=len(heard) * SENSOR_COUNT).reshape(-1, SENSOR_COUNT)
        intensities = self._intensities(sums, rng)
        payloads = np.where(intensities > 0, pp[heard][:, None], 0)
        rx = payloads[np.arange(len(heard)), intensities.argmax(axis=1)] if len(heard) else heard
        # Paths that carried: open and onto a sensor that received.
        ok = intensities[row, si] > 0
        links = np.column_stack([pt[pi[ok]], ei[ok], pr[pi[ok]], si[ok]]).astype(np.int64)
        got = intensities.any(axis=1)
        heard, intensities, payloads, rx = heard[got], intensities[got], payloads[got], rx[got]
        return Receptions(pt[heard], pr[heard], rx.astype(np.int64), payloads.astype(np.int64),
                          intensities, links.reshape(-1, 4))


def naive_step(channel, poses: np.ndarray, transmitters: np.ndarray, payloads: np.ndarray,
               receivers: np.ndarray | None = None, rng: np.random.Generator | None = None,
               gains: np.ndarray | None = None) -> Receptions:
    """The same model without spatial pruning: every transmitter against every robot, every robot
    as a possible occluder (O(n²) per step). `channel` is any channel with the same parameters
    (params, walls, sensors, hull), compiled or not.
    """
    channel = ReferenceChannel(channel.params, channel.walls, channel.sensors, channel.hull)
    poses, tx, pay, rx_mask = _check_inputs(poses, transmitters, payloads, receivers)
    gain = _check_gains(gains, len(poses))
    n = len(poses)
    pos, dirs = sensor_frames(poses, channel.sensors)
    order = np.argsort(tx, kind='stable')
    tx, pay = tx[order], pay[order]
    all_pt, all_pr, all_pp, all_paths, all_contrib = [], [], [], [], []
    base = 0
    for t, p in zip(tx, pay):
        pr = np.flatnonzero(rx_mask & (np.arange(n) != t))
        pi, ei, si = (g.reshape(-1) for g in np.meshgrid(np.arange(len(pr)), np.arange(SENSOR_COUNT),
                                                         np.arange(SENSOR_COUNT), indexing='ij'))
        visible, d, cos_e, cos_r = channel._visibility(pos[t, ei], dirs[t, ei], pos[pr[pi], si], dirs[pr[pi], si])
        pi, ei, si = pi[visible], ei[visible], si[visible]
        a, b = pos[t, ei], pos[pr[pi], si]
        # Every robot is an occluder candidate for every visible path.
        seg_idx = np.repeat(np.arange(len(pi)), n)
        seg_occ = np.tile(np.arange(n), len(pi))
        open_ = ~channel._blocked(a, b, (np.full(len(pi), t), pr[pi]), seg_occ, seg_idx, poses)
        contrib = channel._contributions(d[open_], cos_e[open_], cos_r[open_])
        all_contrib.append(contrib if gain is None else contrib * gain[t])
        all_paths.append(np.column_stack([pi[open_] + base, ei[open_], si[open_]]))
        all_pt.append(np.full(len(pr), t))
        all_pr.append(pr)
        all_pp.append(np.full(len(pr), p))
        base += len(pr)
    if not all_pt:
        return Receptions.empty()
    paths = np.concatenate(all_paths).reshape(-1, 3)
    return channel._receptions(np.concatenate(all_pt), np.concatenate(all_pr), np.concatenate(all_pp),
                               (paths[:, 0], paths[:, 1], paths[:, 2]), np.concatenate(all_contrib), rng)
