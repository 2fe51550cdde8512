"""Thymio II proximity communication as Enki models it: who hears a payload, on which sensors, how loud.

The spec is Enki's documentation (``shared/seeds/enki-prox-comm-doc.rst``). The 7 horizontal
proximity sensors are both the emitters (their IR LEDs) and the receivers. A pulse from emitter
LED ``e`` (position p_e, direction α_e) reaches receiver sensor ``r`` (p_r, α_r) when

1. |p_e − p_r| < ρ,
2. p_r lies in the emitter's sector α_e ± β_e,
3. p_e lies in the receiver's sector α_r ± β_r,
4. nothing lies on the segment p_e p_r: the hulls of *other* robots, and walls.

The emitter's and the receiver's own hulls are not obstacles. The LEDs and sensors sit on the
hull boundary, or 0.5 mm inside it (the centre sensor at 7.95 cm under an 8 cm arc, the rear
ones at −2.95 cm behind a −3 cm edge). Testing their own hull would therefore block every
link, and that is not what the doc means. Enki does not test them either: a sensor's rays skip
its own robot. Both sectors look outwards at less than 90° from the hull's normal and the hull
is convex, so a path that passes criteria 2–3 leaves its own body at once.

The intensities of all the visible emitters of one transmitting robot add up on each receiver
sensor (d in cm, w = 1 in the documented model):

    r = m / (1 / ((c − x0²) · Σ_e w_e / (d_e − x0)²) + 1)

With one emitter this is Enki's sensor law m(c − x0²)/((d − x0)² + c − x0²). Responses below the
threshold are set to 0. The threshold is the response to one emitter at ρ, or a fixed value.
A received transmission gives the receiving robot 7 payloads and 7 intensities, in Aseba order
(5 front left→right, rear left, rear right), zero where the sensor did not receive. ``rx`` is the
payload of the strongest sensor. Every received sensor carries the same payload, so ``rx`` is
the transmitted value.

Two named parameter sets (DESIGN.md §4): ``enki_doc``, the seed's documented model and the
default, and ``enki_code``, the constants of Enki's later ``Thymio2.cpp`` / ``IRComm.cpp``.
The later code uses ρ 48 cm, m 4600, c 917, x0 0.2, a fixed threshold of 1400, the weight
w = cos(α_e)^18 · cos(α_r)^9 and emitter sectors spanned by 5 rays over ±30°. Geometry is in
metres (REP-103); the response formula works in cm, as Enki does.

:class:`ProxCommChannel` computes one medium step for many robots at once. Robot pairs come
from a k-d tree (pairs whose centres are closer than ρ plus twice the sensors' radius), and
occluders from a second query around each pair. The cost therefore grows with the number of
neighbours, not with n². :func:`naive_step` is the plain all-pairs version of the same model.
The tests check the two against each other, and the benchmark times them.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import cKDTree

from thymio_road.sim import robot_model as rm

SENSOR_COUNT = 7
#: The real robot's payload is 11 bits (DESIGN.md §4 keeps to 10 for SwarmCom framing).
PAYLOAD_MAX = (1 << 11) - 1
#: Period of a transmitting robot (s).
PERIOD = 0.1


@dataclass(frozen=True)
class ProxCommParams:
    """One named set of channel constants. Lengths are in cm, as in Enki; angles in radians."""

    name: str
    #: ρ: an emitter–receiver distance must be strictly below this (cm).
    range_cm: float
    #: β_e: half-aperture of an emitter's sector (rad).
    emitter_aperture: float
    #: β_r: half-aperture of a receiver's sector (rad).
    receiver_aperture: float
    #: Maximum response.
    m: float
    #: Offset of the response law (cm).
    x0: float
    #: Bias of the response law (cm²).
    c: float
    #: Responses below this are zeroed. None: the response to one emitter at ρ (the documented rule).
    threshold: float | None = None
    #: Exponents of the angular weight cos(α_e)^ke · cos(α_r)^kr (0: no weight, as documented).
    ke: float = 0.0
    kr: float = 0.0
    #: σ of the Gaussian noise added to each received intensity (0: noiseless).
    noise: float = 0.0

    def __post_init__(self) -> None:
        for key in ('range_cm', 'm', 'c'):
            value = getattr(self, key)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'prox comm model {self.name!r}: {key} must be a positive number, got {value!r}')
        for key in ('emitter_aperture', 'receiver_aperture'):
            value = getattr(self, key)
            if not 0 < value < math.pi / 2:
                raise ValueError(f'prox comm model {self.name!r}: {key} must be in (0, π/2) rad, got {value!r}')
        if not 0 <= self.x0 < math.sqrt(self.c):
            raise ValueError(f'prox comm model {self.name!r}: x0 must be in [0, sqrt(c)), got {self.x0!r}')
        for key in ('ke', 'kr', 'noise'):
            if getattr(self, key) < 0:
                raise ValueError(f'prox comm model {self.name!r}: {key} must be >= 0, got {getattr(self, key)!r}')
        if self.threshold is not None and not 0 <= self.threshold <= self.m:
            raise ValueError(f'prox comm model {self.name!r}: threshold must be in [0, m], got {self.threshold!r}')

    @property
    def range_m(self) -> float:
        return self.range_cm / 100.0

    @property
    def min_response(self) -> float:
        """The threshold: the fixed value, or the response to one emitter at distance ρ."""
        if self.threshold is not None:
            return float(self.threshold)
        return float(self.single_response(self.range_cm))

    def single_response(self, d_cm: np.ndarray | float) -> np.ndarray:
        """Response of a receiver to one emitter straight ahead at d cm (weight 1)."""
        return self.response(1.0 / np.maximum(np.asarray(d_cm, dtype=float) - self.x0, 1e-9) ** 2)

    def response(self, inverse_square_sum: np.ndarray | float) -> np.ndarray:
        """r = m / (1 / ((c − x0²) Σ w/(d − x0)²) + 1); 0 where the sum is 0 (nothing visible)."""
        s = np.asarray(inverse_square_sum, dtype=float) * (self.c - self.x0 ** 2)
        with np.errstate(divide='ignore'):
            return np.where(s > 0, self.m / (1.0 / np.where(s > 0, s, 1.0) + 1.0), 0.0)


#: The seed's documented model (the default): ρ ≈ 23 cm, ±15° emitters, ±36° receivers.
ENKI_DOC = ProxCommParams('enki_doc', range_cm=23.0, emitter_aperture=math.radians(15.0),
                          receiver_aperture=math.radians(36.0), m=4200.0, x0=0.02, c=275.0)
#: The constants of Enki's later code: ρ 48, m 4600, c 917, x0 0.2, threshold 1400, cos^18·cos^9,
#: emitter sectors over the 5 rays' ±30°, receiver aperture 0.644 rad, intensity noise σ 2.87.
ENKI_CODE = ProxCommParams('enki_code', range_cm=48.0, emitter_aperture=math.radians(30.0),
                           receiver_aperture=0.644, m=4600.0, x0=0.2, c=917.0, threshold=1400.0,
                           ke=18.0, kr=9.0, noise=2.87)
MODELS: dict[str, ProxCommParams] = {p.name: p for p in (ENKI_DOC, ENKI_CODE)}


def model(name: str) -> ProxCommParams:
    """A named parameter set; the error lists the known names."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown prox comm model {name!r} (known: {', '.join(MODELS)})") from None


@dataclass
class Receptions:
    """The transmissions that were received in one step, one row per (transmitter, receiver).

    Rows are sorted by transmitter, then receiver (robot indices), so a step is deterministic.
    ``links`` lists the emitter→sensor paths that carried a received message:
    (transmitter, emitter, receiver, sensor) per row.
    """

    transmitter: np.ndarray
    receiver: np.ndarray
    rx: np.ndarray
    payloads: np.ndarray
    intensities: np.ndarray
    links: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))

    def __len__(self) -> int:
        return len(self.transmitter)

    def rows(self) -> list[tuple[int, int, int, tuple[int, ...], tuple[int, ...]]]:
        """Plain-Python rows (transmitter, receiver, rx, payloads, intensities), for tests and logs."""
        return [(int(t), int(r), int(v), tuple(map(int, p)), tuple(map(int, i)))
                for t, r, v, p, i in zip(self.transmitter, self.receiver, self.rx, self.payloads,
                                         self.intensities)]

    @classmethod
    def empty(cls) -> 'Receptions':
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none.copy(), none.copy(), np.zeros((0, SENSOR_COUNT), np.int64),
                   np.zeros((0, SENSOR_COUNT), np.int64))


# --- geometry ----------------------------------------------------------------------------------

def sensor_frames(poses: np.ndarray, sensors: np.ndarray = rm.PROX_SENSORS) -> tuple[np.ndarray, np.ndarray]:
    """World positions (n×7×2) and unit directions (n×7×2) of every robot's sensors/LEDs."""
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


# --- the channel -------------------------------------------------------------------------------

def _check_inputs(poses: np.ndarray, transmitters: np.ndarray, payloads: np.ndarray,
                  receivers: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    poses = np.asarray(poses, dtype=float).reshape(-1, 3)
    n = len(poses)
    tx = np.asarray(transmitters, dtype=np.int64).reshape(-1)
    pay = np.asarray(payloads, dtype=np.int64).reshape(-1)
    if len(tx) != len(pay):
        raise ValueError(f'{len(tx)} transmitters but {len(pay)} payloads')
    if len(tx) and (tx.min() < 0 or tx.max() >= n):
        raise ValueError(f'transmitter index out of range 0..{n - 1}: {tx.tolist()}')
    if len(np.unique(tx)) != len(tx):
        raise ValueError('a robot transmits at most once per step')
    if len(pay) and (pay.min() < 0 or pay.max() > PAYLOAD_MAX):
        raise ValueError(f'payloads must be in 0..{PAYLOAD_MAX} (11 bits), got {pay.tolist()}')
    rx_mask = np.ones(n, dtype=bool) if receivers is None else np.asarray(receivers, dtype=bool).reshape(-1)
    if len(rx_mask) != n:
        raise ValueError(f'receivers mask has {len(rx_mask)} entries for {n} robots')
    if not np.all(np.isfinite(poses)):
        raise ValueError('poses must be finite')
    return poses, tx, pay, rx_mask


def _check_gains(gains: np.ndarray | None, n: int) -> np.ndarray | None:
    """Per-robot emitter gains (n,), finite and >= 0; None when all are 1 (nothing to scale)."""
    if gains is None:
        return None
    g = np.asarray(gains, dtype=float).reshape(-1)
    if len(g) != n:
        raise ValueError(f'gains has {len(g)} entries for {n} robots')
    if not np.all(np.isfinite(g)) or (g < 0).any():
        raise ValueError('gains must be finite and >= 0')
    return None if (g == 1.0).all() else g


def range_with_gain(params: ProxCommParams, gain: float) -> float:
    """Range (m) of one emitter straight at one receiver when its intensity is scaled by `gain`:
    the distance where g·w/(d − x0)² equals the threshold's 1/(d_t − x0)², capped at ρ."""
    if gain <= 0:
        return 0.0
    # threshold response r_t = response(1/(d_t − x0)²)  →  d_t from the inverse of the law
    r_t = params.min_response
    if r_t <= 0:
        return params.range_m
    s = 1.0 / (params.m / r_t - 1.0) / (params.c - params.x0 ** 2)  # Σ w/(d − x0)² at threshold
    d_cm = params.x0 + math.sqrt(gain / s)
    return min(d_cm, params.range_cm) / 100.0


class ProxCommChannel:
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
        """w / (d − x0)² per visible emitter→sensor path (d in m, the law in cm)."""
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

    def link_segments(self, poses: np.ndarray, links: np.ndarray) -> np.ndarray:
        """World end points (l×2×2) of (transmitter, emitter, receiver, sensor) links, for markers."""
        links = np.asarray(links, dtype=np.int64).reshape(-1, 4)
        pos, _ = sensor_frames(np.asarray(poses, dtype=float).reshape(-1, 3), self.sensors)
        return np.stack([pos[links[:, 0], links[:, 1]], pos[links[:, 2], links[:, 3]]], axis=1)


def naive_step(channel: ProxCommChannel, poses: np.ndarray, transmitters: np.ndarray, payloads: np.ndarray,
               receivers: np.ndarray | None = None, rng: np.random.Generator | None = None,
               gains: np.ndarray | None = None) -> Receptions:
    """The same model without spatial pruning: every transmitter against every robot, every robot
    as a possible occluder (O(n²) per step). The reference for tests and the benchmark."""
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

def scatter_robots(n: int, density: float = 10.0, rng: np.random.Generator | None = None,
                   jitter: float = 0.05) -> np.ndarray:
    """n non-overlapping poses (n×3) on a jittered square grid of `density` robots per m².

    Neighbours are 1/√density apart (31.6 cm at 10 per m²) and are moved by up to ±`jitter`.
    Headings are uniform. Used by the benchmark and the tests for realistic crowds.
    """
    rng = rng or np.random.default_rng(0)
    spacing = 1.0 / math.sqrt(density)
    if spacing - 2 * jitter < 2 * rm.HULL_BOUND_RADIUS:
        raise ValueError(f'density {density}/m² with jitter {jitter} m lets robots overlap')
    side = math.ceil(math.sqrt(n))
    k = np.arange(n)
    xy = np.column_stack([k % side, k // side]) * spacing + spacing / 2
    xy = xy + rng.uniform(-jitter, jitter, (n, 2))
    return np.column_stack([xy, rng.uniform(-math.pi, math.pi, n)])
