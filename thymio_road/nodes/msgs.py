# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Message facade: ROS 2 message classes when rclpy is importable, rosbags' types otherwise.

Node code imports its message classes and QoS profiles from here, so the same node runs on
rclpy and in the embedded runtime. Without ROS the classes come from the rosbags typestore,
wrapped so that ``Twist()`` builds a default message as the generated ROS classes do (rosbags
dataclasses have no defaults and want numpy arrays of the exact dtype).

Only the types of the interface contract (docs/design.md, "Interface contract") are exposed; add more here as needed.
"""
from __future__ import annotations

import array
from dataclasses import dataclass
import math
import os
from typing import Any, Iterable

import numpy as np

#: THYMIO_ROAD_EMBEDDED=1 forces rosbags types even on a ROS machine (used by the embedded CLI).
try:
    if os.environ.get('THYMIO_ROAD_EMBEDDED'):
        raise ImportError
    import rclpy  # noqa: F401
    ROS = True
except ImportError:
    ROS = False

TYPES = {
    'Header': 'std_msgs/msg/Header',
    'Bool': 'std_msgs/msg/Bool',
    'Int16': 'std_msgs/msg/Int16',
    'String': 'std_msgs/msg/String',
    'ColorRGBA': 'std_msgs/msg/ColorRGBA',
    'Int16MultiArray': 'std_msgs/msg/Int16MultiArray',
    'MultiArrayDimension': 'std_msgs/msg/MultiArrayDimension',
    'Twist': 'geometry_msgs/msg/Twist',
    'Point': 'geometry_msgs/msg/Point',
    'Pose': 'geometry_msgs/msg/Pose',
    'PoseStamped': 'geometry_msgs/msg/PoseStamped',
    'Quaternion': 'geometry_msgs/msg/Quaternion',
    'Vector3': 'geometry_msgs/msg/Vector3',
    'TransformStamped': 'geometry_msgs/msg/TransformStamped',
    'Range': 'sensor_msgs/msg/Range',
    'BatteryState': 'sensor_msgs/msg/BatteryState',
    'Odometry': 'nav_msgs/msg/Odometry',
    'OccupancyGrid': 'nav_msgs/msg/OccupancyGrid',
    'Marker': 'visualization_msgs/msg/Marker',
    'MarkerArray': 'visualization_msgs/msg/MarkerArray',
    'TFMessage': 'tf2_msgs/msg/TFMessage',
    'Clock': 'rosgraph_msgs/msg/Clock',
    'Time': 'builtin_interfaces/msg/Time',
}

#: Message packages a pip-installed rclpy may lack (no tf2_msgs wheel exists): without them the
#: nodes skip what needs them (TF) and say so once (:data:`TF_MISSING`).
OPTIONAL_PACKAGES = ('tf2_msgs',)
TF_MISSING = ('tf2_msgs is not installed: TF (/tf, /tf_static) is not published; install it '
              "(ros-<distro>-tf2-msgs, or ../shared/ros/install.sh) for RViz's TF display")

_NUMPY = {
    'bool': np.bool_, 'byte': np.uint8, 'char': np.uint8, 'int8': np.int8, 'uint8': np.uint8,
    'int16': np.int16, 'uint16': np.uint16, 'int32': np.int32, 'uint32': np.uint32,
    'int64': np.int64, 'uint64': np.uint64, 'float32': np.float32, 'float64': np.float64,
}


class MessageFactory:
    """Callable like a generated ROS message class: ``Factory(**fields)`` gives a full message.

    Messages are built on the simulation's hot path, so each type's constructor is generated
    once as Python code (:meth:`_compile`): a keyword argument per field, whose default is the
    field's value itself when immutable and a fresh value (nested message, array) otherwise.
    """

    def __init__(self, typestore: Any, typename: str) -> None:
        self.typestore, self.typename = typestore, typename
        self.cls = typestore.types[typename]
        self.__name__ = typename.rsplit('/', 1)[-1]
        self._make: Any = None

    def _compile(self) -> Any:
        _, fields = self.typestore.fielddefs[self.typename]
        special = _IDL_DEFAULTS.get(self.typename, {})
        scope: dict[str, Any] = {'cls': self.cls, 'MISSING': _MISSING, 'typename': self.typename}
        params, values = [], []
        for k, (name, (kind, detail)) in enumerate(fields):
            if name in special or kind.value == 1:
                scope[f'd{k}'] = special[name] if name in special else _base_default(detail[0])
                params.append(f'{name}=d{k}')
                values.append(name)
            else:
                maker = _maker(self.typestore, kind.value, detail)
                if isinstance(maker, MessageFactory):  # a nested message: its constructor itself
                    maker = maker._make or maker._compile()
                scope[f'm{k}'] = maker
                params.append(f'{name}=MISSING')
                values.append(f'm{k}() if {name} is MISSING else {name}')
        signature = ', '.join(['*', *params, '**unknown'])
        code = (f'def make({signature}):\n'
                f'    if unknown:\n'
                f'        raise TypeError(f"{{typename}} has no field {{sorted(unknown)[0]!r}}")\n'
                f'    return cls({", ".join(values)})\n')
        exec(code, scope)  # noqa: S102 - code built from the typestore's field names only
        self._make = scope['make']
        return self._make

    def __call__(self, **fields: Any) -> Any:
        return (self._make or self._compile())(**fields)

    def __getattr__(self, name: str) -> Any:  # constants such as Range.INFRARED
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self.cls, name)


_MISSING = object()


def _base_default(base: str) -> Any:
    return '' if base in ('string', 'wstring') else False if base == 'bool' else \
        0.0 if base.startswith('float') else 0


_FACTORIES: dict[tuple[int, str], MessageFactory] = {}
#: Non-zero defaults declared in the .msg files (the typestore does not carry them).
_IDL_DEFAULTS = {'geometry_msgs/msg/Quaternion': {'w': 1.0}}


def _factory(store: Any, typename: str) -> MessageFactory:
    key = (id(store), typename)
    if key not in _FACTORIES:
        _FACTORIES[key] = MessageFactory(store, typename)
    return _FACTORIES[key]


def _maker(store: Any, kind: int, detail: Any) -> Any:
    """A zero-argument callable giving a fresh default value for one field."""
    if kind == 1:  # base type: immutable default
        value = _base_default(detail[0])
        return lambda: value
    if kind == 2:  # nested message
        return _factory(store, detail)
    sub, size = detail
    length = size if kind == 3 else 0
    if sub[0].value == 1 and sub[1][0] in _NUMPY:
        dtype = _NUMPY[sub[1][0]]
        return lambda: np.zeros(length, dtype=dtype)
    element = _maker(store, sub[0].value, sub[1])
    return lambda: [element() for _ in range(length)]


if ROS:
    import importlib

    def _ros_class(typename: str) -> Any:
        pkg, _, name = typename.split('/')
        try:
            return getattr(importlib.import_module(f'{pkg}.msg'), name)
        except ImportError:
            if pkg in OPTIONAL_PACKAGES:
                return None
            raise

    _CLASSES = {alias: _ros_class(full) for alias, full in TYPES.items()}
    typestore = None
    distro = os.environ.get('ROS_DISTRO', '')
else:
    _CLASSES = {}

#: ROS 2 distributions whose message definitions the embedded runtime can use (rosbags stores).
#: They differ: Jazzy's sensor_msgs/Range has a `variance` field that Humble's lacks.
DISTROS = ('humble', 'jazzy')
DEFAULT_DISTRO = 'jazzy'
_STORES: dict[str, Any] = {}


def typestore_for(name: str) -> Any:
    """The rosbags typestore of a ROS 2 distro: the message definitions and classes of TYPES and of
    the types in them (nodes/typestores.py).
    """
    if name not in DISTROS:
        raise ValueError(f"unknown ROS 2 distro '{name}' (known: {', '.join(DISTROS)})")
    if name not in _STORES:
        from thymio_road.nodes.typestores import interface_typestore
        _STORES[name] = interface_typestore(name, TYPES.values())
    return _STORES[name]


def use_distro(name: str) -> None:
    """Make this module's message classes those of a ROS 2 distro (embedded runtime only: on
    ROS they are the installed distro's). Nodes look the classes up here at each use, so the
    messages they fill and the definitions a bag records are the same distro's.
    """
    global typestore, distro
    if ROS:
        return
    typestore = typestore_for(name)
    distro = name
    _CLASSES.update({alias: _factory(typestore, full) for alias, full in TYPES.items()})
    globals().update(_CLASSES)


if not ROS:
    use_distro(DEFAULT_DISTRO)

Header = _CLASSES['Header']
Bool = _CLASSES['Bool']
Int16 = _CLASSES['Int16']
String = _CLASSES['String']
ColorRGBA = _CLASSES['ColorRGBA']
Int16MultiArray = _CLASSES['Int16MultiArray']
MultiArrayDimension = _CLASSES['MultiArrayDimension']
Twist = _CLASSES['Twist']
Point = _CLASSES['Point']
Pose = _CLASSES['Pose']
PoseStamped = _CLASSES['PoseStamped']
Quaternion = _CLASSES['Quaternion']
Vector3 = _CLASSES['Vector3']
TransformStamped = _CLASSES['TransformStamped']
Range = _CLASSES['Range']
BatteryState = _CLASSES['BatteryState']
Odometry = _CLASSES['Odometry']
OccupancyGrid = _CLASSES['OccupancyGrid']
Marker = _CLASSES['Marker']
MarkerArray = _CLASSES['MarkerArray']
TFMessage = _CLASSES['TFMessage']
Clock = _CLASSES['Clock']
Time = _CLASSES['Time']


if ROS:
    from rcl_interfaces.msg import ParameterDescriptor
    from std_srvs.srv import Trigger
else:
    @dataclass
    class ParameterDescriptor:
        """rcl_interfaces/msg/ParameterDescriptor, the fields the nodes set."""

        name: str = ''
        description: str = ''
        read_only: bool = False
        dynamic_typing: bool = False

    class Trigger:
        """std_srvs/srv/Trigger for the embedded runtime (services are not recorded)."""

        @dataclass
        class Request:
            pass

        @dataclass
        class Response:
            success: bool = False
            message: str = ''


def type_name(msg_class: Any) -> str:
    """'pkg/msg/Name' of a message class from this module (either flavour)."""
    if isinstance(msg_class, MessageFactory):
        return msg_class.typename
    module = msg_class.__module__.split('.')[0]
    return f'{module}/msg/{msg_class.__name__}'


def int16_array(values: Iterable[int]) -> Any:
    """A value for an ``int16[]`` field: array.array for rclpy, an int16 ndarray for rosbags."""
    return array.array('h', values) if ROS else np.asarray(values, dtype=np.int16)


def int8_array(values: np.ndarray) -> Any:
    """A value for an ``int8[]`` field (OccupancyGrid data)."""
    return array.array('b', values.astype(np.int8).tobytes()) if ROS else values.astype(np.int8)


def stamp(seconds: float) -> Any:
    """builtin_interfaces/Time for a time in seconds."""
    ns = int(round(seconds * 1e9))
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def quaternion_from_yaw(yaw: float) -> Any:
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2))


def transform_stamped(stamp: Any, parent: str, child: str, pose: Any) -> Any:
    """geometry_msgs/TransformStamped of a planar pose (x, y, yaw) of `child` in `parent`."""
    x, y, th = pose
    tf = TransformStamped(header=Header(stamp=stamp, frame_id=parent), child_frame_id=child)
    # Into the default Vector3 and Quaternion (0, 0, 0, 1): the values of Vector3(x, y, 0) and
    # quaternion_from_yaw, without building them again.
    transform = tf.transform
    transform.translation.x, transform.translation.y = float(x), float(y)
    half = float(th) / 2
    transform.rotation.z, transform.rotation.w = math.sin(half), math.cos(half)
    return tf


# --- the ground sensors as jeguzzi/ros-thymio's driver publishes them ---------------------------

#: ``ground/left`` and ``ground/right``: infrared Range messages of a 0.3 rad cone, 9..30 mm,
#: whose range only says whether the sensor sees the ground (REP-117: -inf, a raw value at or
#: above the threshold) or not (+inf, below it). The raw values stay on ``prox/ground/delta``.
GROUND_NAMES = ('left', 'right')
GROUND_FOV = 0.3
GROUND_MIN_RANGE = 0.009
GROUND_MAX_RANGE = 0.030
GROUND_THRESHOLD = 200


def ground_range(stamp: Any, frame_id: str, value: int, threshold: int = GROUND_THRESHOLD) -> Any:
    """sensor_msgs/Range of one ground sensor's raw value (the driver's convention)."""
    return Range(header=Header(stamp=stamp, frame_id=frame_id), radiation_type=Range.INFRARED,
                 field_of_view=GROUND_FOV, min_range=GROUND_MIN_RANGE, max_range=GROUND_MAX_RANGE,
                 range=-math.inf if value >= threshold else math.inf)


def ground_link(stamp: Any, base_link: str, frame_id: str, x: float, y: float) -> Any:
    """The static transform of a ground sensor's frame: at (x, y), its x axis pointing down."""
    tf = transform_stamped(stamp, base_link, frame_id, (x, y, 0.0))
    tf.transform.rotation = Quaternion(x=0.0, y=math.sqrt(0.5), z=0.0, w=math.sqrt(0.5))
    return tf


# --- QoS ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QoS:
    """The QoS subset the embedded runtime honours and records (depth, reliability, durability)."""

    depth: int = 10
    reliable: bool = True
    transient_local: bool = False


def qos(depth: int = 10, *, latched: bool = False, best_effort: bool = False) -> Any:
    """A QoS profile: rclpy's QoSProfile on ROS, :class:`QoS` otherwise."""
    if ROS:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        return QoSProfile(depth=depth,
                          reliability=ReliabilityPolicy.BEST_EFFORT if best_effort else ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)
    return QoS(depth=depth, reliable=not best_effort, transient_local=latched)


LATCHED = qos(1, latched=True)
SENSOR = qos(10)
DEFAULT = qos(10)
