# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The real Thymio's driver core: conversions, calibration, watchdog and reconnect policy.

ROS-free and tdmclient-free so that all of it is unit-tested without a robot. The driver node
(`thymio_road.nodes.driver_node`) feeds it ROS messages as plain numbers and publishes what
it returns; the link to the robot is anything with the narrow :class:`ThymioLink` interface
(`thymio_road.real.tdm_link.TdmLink` over tdmclient in production, a fake in the tests).

The robot runs ``thymio_road/real/aseba/driver.aesl``: it emits ``ros_sensors`` on every "prox"
event (10 Hz) and ``ros_comm_rx`` on every received IR message, and takes ``ros_set_motors``,
``ros_set_comm_tx``, ``ros_enable_comm`` and ``ros_set_led_top``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from pathlib import Path
import sys
from typing import Any, Callable, Mapping, Protocol, Sequence
import xml.etree.ElementTree as ET

from thymio_road.sim import robot_model as rm

PACKAGE = 'thymio_road'
PROGRAM_FILE = 'driver.aesl'

# --- The program's events (names and sizes must match driver.aesl; a test checks) -----------
EVENT_SENSORS = 'ros_sensors'
EVENT_COMM_RX = 'ros_comm_rx'
EVENT_SET_MOTORS = 'ros_set_motors'
EVENT_SET_COMM_TX = 'ros_set_comm_tx'
EVENT_ENABLE_COMM = 'ros_enable_comm'
EVENT_SET_LED_TOP = 'ros_set_led_top'
EVENTS: dict[str, int] = {
    EVENT_SENSORS: 11, EVENT_COMM_RX: 15, EVENT_SET_MOTORS: 2,
    EVENT_SET_COMM_TX: 1, EVENT_ENABLE_COMM: 1, EVENT_SET_LED_TOP: 3,
}
#: The program stops the motors by itself after this long without ``ros_set_motors``.
ROBOT_WATCHDOG = 1.0

#: Layout label of ``comm/rx`` (std_msgs/Int16MultiArray, 15 values): the fields of
#: ros-thymio's thymio_msgs/Comm flattened, with their index ranges.
COMM_RX_LABEL = 'value[0] payloads[1:8] intensities[8:15]'
COMM_RX_SIZE = 15
#: Proximity communication carries 11 bits (the IR medium clips to the same range); the
#: project's messages keep to 10 (docs/design.md: Thymio facts).
COMM_TX_MAX = 2047
#: Aseba's LED intensity range.
LED_MAX = 32


class LinkError(Exception):
    """The robot could not be reached or refused the program (a new attempt may succeed)."""


class LinkLost(Exception):
    """An established link to the robot broke."""


class ThymioLink(Protocol):
    """The narrow interface the driver needs from a Thymio connection."""

    def connect(self, program: 'AsebaProgram') -> str:
        """Find and lock the robot, load and run `program`; return a description of the robot."""

    def poll(self) -> list[tuple[str, list[int]]]:
        """Events received since the last call, oldest first; raise LinkLost if the link broke."""

    def send(self, event: str, values: Sequence[int]) -> None:
        """Send one event to the program; raise LinkLost if the link broke."""

    def close(self) -> None:
        """Release the robot (unlock) and the connection; never raises."""


# --- The Aseba program --------------------------------------------------------------------------

@dataclass(frozen=True)
class AsebaProgram:
    """An .aesl file's global events (name → size) and its Thymio node's source."""

    path: Path
    events: dict[str, int]
    source: str


def program_path() -> Path:
    """driver.aesl beside this package (checkout, pip) or in the ROS/pip share folder."""
    candidates = [Path(__file__).resolve().parent / 'aseba' / PROGRAM_FILE]
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(Path(get_package_share_directory(PACKAGE)) / 'aseba' / PROGRAM_FILE)
    except Exception:  # noqa: BLE001 - no ROS, or package not in the ament index
        pass
    candidates.append(Path(sys.prefix) / 'share' / PACKAGE / 'aseba' / PROGRAM_FILE)
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f'cannot find the Aseba program {PROGRAM_FILE}; looked in '
                            + ', '.join(map(str, candidates)))


def load_program(path: str | Path | None = None) -> AsebaProgram:
    """Read an .aesl file; its events must be exactly those the driver speaks (:data:`EVENTS`)."""
    path = Path(path) if path else program_path()
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise ValueError(f'{path}: not a readable .aesl file: {exc}') from None
    events: dict[str, int] = {}
    for element in root.iter('event'):
        name, size = element.get('name'), element.get('size')
        if not name or size is None or not size.isdigit():
            raise ValueError(f'{path}: event needs a name and a size, got {element.attrib}')
        events[name] = int(size)
    if root.find('constant') is not None:
        raise ValueError(f'{path}: <constant> is not supported (TDM compiles plain Aseba); '
                         'write the value in the source')
    nodes = root.findall('node')
    if len(nodes) != 1 or not (nodes[0].text or '').strip():
        raise ValueError(f'{path}: expected exactly one <node> with Aseba source, got {len(nodes)}')
    if events != EVENTS:
        raise ValueError(f"{path}: events {events} differ from the driver's {EVENTS}")
    return AsebaProgram(path, events, nodes[0].text)


# --- Calibration and unit conversions --------------------------------------------------------------

@dataclass(frozen=True)
class Calibration:
    """A real robot's motor calibration (report §10); its grey reference goes to the controller.

    A motor target is the nominal command (the report's 0.032 cm/s per unit) times
    `speed_factor` (the robot as a whole) times the wheel's gain (left/right imbalance).
    """

    speed_factor: float = 1.0
    gain_left: float = 1.0
    gain_right: float = 1.0

    def __post_init__(self) -> None:
        for name in ('speed_factor', 'gain_left', 'gain_right'):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0.5 <= value <= 2.0:
                raise ValueError(f'calibration {name} must be a number in [0.5, 2.0], got {value!r}')

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = 'calibration') -> 'Calibration':
        unknown = set(data) - {'speed_factor', 'gain_left', 'gain_right'}
        if unknown:
            raise ValueError(f'{where}: unknown calibration field(s) {sorted(unknown)} '
                             '(known: speed_factor, gain_left, gain_right)')
        try:
            return cls(**data)
        except ValueError as exc:
            raise ValueError(f'{where}: {exc}') from None

    def wheel_factors(self) -> tuple[float, float]:
        return self.speed_factor * self.gain_left, self.speed_factor * self.gain_right


def _clip(units: float) -> int:
    return max(-rm.MOTOR_UNITS_MAX, min(rm.MOTOR_UNITS_MAX, int(round(units))))


def twist_to_targets(v: float, omega: float, calibration: Calibration = Calibration()) -> tuple[int, int]:
    """cmd_vel → calibrated motor targets; the uncalibrated case is :func:`robot_model.twist_to_units`."""
    if not (math.isfinite(v) and math.isfinite(omega)):
        raise ValueError(f'cmd_vel must be finite, got linear.x={v}, angular.z={omega}')
    half = omega * rm.AXLE_LENGTH / 2.0
    fl, fr = calibration.wheel_factors()
    return _clip((v - half) / rm.SPEED_PER_UNIT * fl), _clip((v + half) / rm.SPEED_PER_UNIT * fr)


def measured_twist(left: int, right: int, calibration: Calibration = Calibration(),
                   deadband: int = 0) -> tuple[float, float, float, float]:
    """Measured motor speeds (units) → (v_left, v_right, v, ω) in m/s and rad/s.

    A calibrated robot moves at nominal speed for the command divided by its factors, so
    the measurement is divided by them too. Readings within `deadband` are noise at rest.
    """
    fl, fr = calibration.wheel_factors()
    ul = 0 if abs(left) <= deadband else left
    ur = 0 if abs(right) <= deadband else right
    vl, vr = rm.SPEED_PER_UNIT * ul / fl, rm.SPEED_PER_UNIT * ur / fr
    return vl, vr, (vl + vr) / 2.0, (vr - vl) / rm.AXLE_LENGTH


def led_to_aseba(r: float, g: float, b: float) -> list[int]:
    """std_msgs/ColorRGBA (0..1) → Aseba's leds.top intensities (0..32)."""
    out = []
    for name, value in (('r', r), ('g', g), ('b', b)):
        if not math.isfinite(value):
            raise ValueError(f'led/body/top.{name} must be finite, got {value}')
        out.append(max(0, min(LED_MAX, int(round(value * LED_MAX)))))
    return out


def comm_tx_value(value: int) -> int:
    """comm/tx → prox.comm.tx; refused outside 0..2047 rather than silently truncated."""
    if isinstance(value, bool) or not 0 <= int(value) <= COMM_TX_MAX:
        raise ValueError(f'comm/tx must be in 0..{COMM_TX_MAX} (11 bits), got {value}')
    return int(value)


@dataclass(frozen=True)
class SensorReading:
    """One "prox" event of the robot."""

    horizontal: tuple[int, ...]
    ground: tuple[int, int]
    speeds: tuple[int, int]


@dataclass(frozen=True)
class CommReading:
    """One received IR message: the value of the strongest sensor, per-sensor payloads/intensities."""

    value: int
    payloads: tuple[int, ...]
    intensities: tuple[int, ...]

    def as_array(self) -> list[int]:
        return [self.value, *self.payloads, *self.intensities]


def parse_sensors(values: Sequence[int]) -> SensorReading:
    if len(values) != EVENTS[EVENT_SENSORS]:
        raise ValueError(f'{EVENT_SENSORS}: expected {EVENTS[EVENT_SENSORS]} values, got {len(values)}')
    v = [int(x) for x in values]
    return SensorReading(tuple(v[0:7]), (v[7], v[8]), (v[9], v[10]))


def parse_comm(values: Sequence[int]) -> CommReading:
    if len(values) != COMM_RX_SIZE:
        raise ValueError(f'{EVENT_COMM_RX}: expected {COMM_RX_SIZE} values, got {len(values)}')
    v = [int(x) for x in values]
    return CommReading(v[0], tuple(v[1:8]), tuple(v[8:15]))


# --- Odometry -----------------------------------------------------------------------------------------

class Odometry:
    """Dead reckoning from the measured wheel speeds, integrated exactly along arcs."""

    #: Gaps longer than this (a lost link) are not integrated: the pose would be a guess.
    MAX_GAP = 0.5

    def __init__(self, x: float = 0.0, y: float = 0.0, theta: float = 0.0) -> None:
        self.x, self.y, self.theta = x, y, theta
        self.v = self.omega = 0.0
        self._last: float | None = None

    def update(self, now: float, v: float, omega: float) -> None:
        """Integrate the previous speeds up to `now`, then take the new ones."""
        if self._last is not None:
            dt = now - self._last
            if 0.0 < dt <= self.MAX_GAP:
                self._advance(dt)
        self._last = now
        self.v, self.omega = v, omega

    def reset_clock(self) -> None:
        self._last = None

    def _advance(self, dt: float) -> None:
        v, w, th = self.v, self.omega, self.theta
        if abs(w) < 1e-9:
            self.x += v * dt * math.cos(th)
            self.y += v * dt * math.sin(th)
        else:
            r = v / w
            self.x += r * (math.sin(th + w * dt) - math.sin(th))
            self.y -= r * (math.cos(th + w * dt) - math.cos(th))
        self.theta = math.atan2(math.sin(th + w * dt), math.cos(th + w * dt))


# --- Watchdog and reconnect policy ----------------------------------------------------------------------

class Watchdog:
    """Commands older than `timeout` are stale: the driver then stops the motors once."""

    def __init__(self, timeout: float) -> None:
        if not timeout > 0:
            raise ValueError(f'cmd_timeout must be > 0 s, got {timeout}')
        self.timeout = timeout
        self.last: float | None = None

    def feed(self, now: float) -> None:
        self.last = now

    def stale(self, now: float) -> bool:
        return self.last is None or now - self.last > self.timeout


class ReconnectPolicy:
    """Exponential back-off between connection attempts, reset by a success."""

    def __init__(self, initial: float = 0.5, maximum: float = 10.0, factor: float = 2.0) -> None:
        if not 0 < initial <= maximum:
            raise ValueError(f'reconnect delays must satisfy 0 < initial <= maximum, '
                             f'got initial={initial}, maximum={maximum}')
        if factor < 1:
            raise ValueError(f'reconnect factor must be >= 1, got {factor}')
        self.initial, self.maximum, self.factor = initial, maximum, factor
        self.failures = 0
        self.next_attempt = -math.inf

    def ready(self, now: float) -> bool:
        return now >= self.next_attempt

    def failed(self, now: float) -> float:
        """Record a failure (or a lost link); return the delay until the next attempt."""
        delay = min(self.maximum, self.initial * self.factor ** self.failures)
        self.failures += 1
        self.next_attempt = now + delay
        return delay

    def succeeded(self) -> None:
        self.failures = 0


# --- The driver -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DriverParams:
    """Timing of the driver (seconds)."""

    #: Commands (cmd_vel) older than this are stale and the motors stop.
    cmd_timeout: float = 0.5
    #: No sensor event for this long means the link is lost (the robot emits at 10 Hz).
    link_timeout: float = 2.0
    #: Motor targets are re-sent this often while fresh, feeding the robot's own watchdog.
    keepalive: float = 0.1
    reconnect_initial: float = 0.5
    reconnect_max: float = 10.0
    #: Proximity communication enabled on connection (comm/enable changes it). Off, as on the
    #: robot and in the simulated IR medium, until a controller enables it.
    comm_enabled: bool = False
    #: Measured wheel speeds within this many units are taken as 0 (noise at rest).
    speed_deadband: int = 10

    def __post_init__(self) -> None:
        for name in ('cmd_timeout', 'link_timeout', 'keepalive'):
            if not getattr(self, name) > 0:
                raise ValueError(f'{name} must be > 0 s, got {getattr(self, name)}')
        if self.keepalive >= ROBOT_WATCHDOG:
            raise ValueError(f"keepalive must be shorter than the robot's {ROBOT_WATCHDOG} s watchdog, "
                             f'got {self.keepalive}')
        if not 0 <= self.speed_deadband <= 100:
            raise ValueError(f'speed_deadband must be in 0..100 units, got {self.speed_deadband}')


@dataclass
class StepResult:
    """What one driver step produced, for the node to publish."""

    sensors: list[SensorReading] = field(default_factory=list)
    comm: list[CommReading] = field(default_factory=list)
    connected: bool = False


class DriverCore:
    """Drives one robot through a :class:`ThymioLink`; call :meth:`step` periodically.

    `now` is a monotonic time in seconds supplied by the caller, so the watchdog keeps working
    when ROS time is simulated or stops.
    """

    def __init__(self, link: ThymioLink, program: AsebaProgram,
                 calibration: Calibration = Calibration(), params: DriverParams = DriverParams(),
                 log: Callable[[str], None] | None = None) -> None:
        self.link, self.program = link, program
        self.calibration, self.params = calibration, params
        self.log = log or (lambda message: None)
        self.watchdog = Watchdog(params.cmd_timeout)
        self.policy = ReconnectPolicy(params.reconnect_initial, params.reconnect_max)
        self.connected = False
        self.robot = ''
        self.targets = (0, 0)
        self.stopped = True
        self.comm_enabled = params.comm_enabled
        self.comm_tx: int | None = None
        self.led: list[int] | None = None
        self.last_event: float | None = None
        self.last_motor_send = -math.inf
        self.connections = 0
        self._broken: str | None = None

    # --- inputs (from ROS callbacks) --------------------------------------------------------
    def on_cmd_vel(self, v: float, omega: float, now: float) -> None:
        self.targets = twist_to_targets(v, omega, self.calibration)
        self.watchdog.feed(now)
        self.stopped = False
        self._send_motors(now)

    def on_comm_tx(self, value: int) -> None:
        self.comm_tx = comm_tx_value(value)
        self._send(EVENT_SET_COMM_TX, [self.comm_tx])

    def on_comm_enable(self, enabled: bool) -> None:
        self.comm_enabled = bool(enabled)
        self._send(EVENT_ENABLE_COMM, [int(self.comm_enabled)])

    def on_led_top(self, r: float, g: float, b: float) -> None:
        self.led = led_to_aseba(r, g, b)
        self._send(EVENT_SET_LED_TOP, self.led)

    # --- periodic work ------------------------------------------------------------------------
    def step(self, now: float) -> StepResult:
        result = StepResult()
        if not self.connected:
            if not self.policy.ready(now):
                return result
            self._connect(now)
            if not self.connected:
                return result
        try:
            if self._broken is not None:
                raise LinkLost(self._broken)
            events = self.link.poll()
        except LinkLost as exc:
            self._lost(now, str(exc))
            return result
        for name, values in events:
            try:
                if name == EVENT_SENSORS:
                    result.sensors.append(parse_sensors(values))
                    self.last_event = now
                elif name == EVENT_COMM_RX:
                    result.comm.append(parse_comm(values))
            except ValueError as exc:
                self.log(f'ignoring a malformed event from {self.robot}: {exc}')
        if self.last_event is not None and now - self.last_event > self.params.link_timeout:
            self._lost(now, f'no sensor event for {now - self.last_event:.1f} s '
                            f'(link_timeout {self.params.link_timeout} s)')
            return result
        if self.watchdog.stale(now):
            if not self.stopped:
                self.log(f'cmd_vel older than {self.params.cmd_timeout} s: stopping the motors')
                self.targets, self.stopped = (0, 0), True
                self._send_motors(now)
        elif now - self.last_motor_send >= self.params.keepalive - 1e-9:
            self._send_motors(now)
        result.connected = self.connected
        return result

    def close(self) -> None:
        """Stop the motors and release the robot (on shutdown)."""
        if self.connected:
            self.targets, self.stopped = (0, 0), True
            try:
                self.link.send(EVENT_SET_MOTORS, [0, 0])
            except LinkLost:
                pass
        self.connected = False
        self.link.close()

    # --- internals ------------------------------------------------------------------------------
    def _connect(self, now: float) -> None:
        try:
            self.robot = self.link.connect(self.program)
        except LinkError as exc:
            delay = self.policy.failed(now)
            self.log(f'cannot connect to the Thymio: {exc}; next attempt in {delay:.1f} s')
            self.link.close()
            return
        self.connected = True
        self._broken = None
        self.connections += 1
        self.policy.succeeded()
        self.last_event = now  # the link timeout counts from the connection
        self.log(f'connected to {self.robot}')
        # A (re)loaded program starts from scratch: restore what the topics asked for.
        self._send(EVENT_ENABLE_COMM, [int(self.comm_enabled)])
        if self.comm_tx is not None:
            self._send(EVENT_SET_COMM_TX, [self.comm_tx])
        if self.led is not None:
            self._send(EVENT_SET_LED_TOP, self.led)
        if self.watchdog.stale(now):
            self.targets, self.stopped = (0, 0), True
        self._send_motors(now)

    def _lost(self, now: float, reason: str) -> None:
        self.connected = False
        self.link.close()
        delay = self.policy.failed(now)
        self.log(f'lost the link to {self.robot or "the Thymio"}: {reason}; '
                 f'reconnecting in {delay:.1f} s')

    def _send_motors(self, now: float) -> None:
        if self._send(EVENT_SET_MOTORS, list(self.targets)):
            self.last_motor_send = now

    def _send(self, event: str, values: list[int]) -> bool:
        if not self.connected:
            return False
        try:
            self.link.send(event, values)
            return True
        except LinkLost as exc:
            # Handled by the next step (close, back off, reconnect); keep callbacks cheap.
            self._broken = f'sending {event} failed: {exc}'
            return False
