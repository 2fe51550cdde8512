# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""runtime/cdr.py: the generated CDR serialisers give rosbags' serialize_cdr bytes, byte for byte."""
import math

import numpy as np
import pytest

from thymio_road.nodes import msgs
from thymio_road.runtime import cdr

#: The types the embedded runtime publishes (msgs.TYPES) and the nested ones they hold.
TYPES = sorted(set(msgs.TYPES.values()) | {
    'geometry_msgs/msg/PoseWithCovariance', 'geometry_msgs/msg/TwistWithCovariance',
    'geometry_msgs/msg/Transform', 'std_msgs/msg/MultiArrayLayout', 'nav_msgs/msg/MapMetaData'})


def _random(store, typename, rng, depth=0):
    """A message of `typename` with random values, string lengths 0-9 and sequence lengths 0-3."""
    _, fields = store.fielddefs[typename]
    values = {}
    for name, (kind, detail) in fields:
        values[name] = _value(store, kind.value, detail, rng, depth)
    return store.types[typename](**values)


def _value(store, kind, detail, rng, depth):
    if kind == 1:
        base = detail[0]
        if base == 'string':
            return ''.join(rng.choice(list('abcdé/_'), int(rng.integers(0, 10))))
        if base == 'bool':
            return bool(rng.integers(0, 2))
        if base.startswith('float'):
            return float(rng.choice([rng.normal(), math.inf, -math.inf, 0.0, 1e-3]))
        info = np.iinfo(np.dtype(cdr._DTYPES.get(base, 'u1')))
        return int(rng.integers(info.min, info.max, endpoint=True))
    if kind == 2:
        return _random(store, detail, rng, depth + 1)
    (sub_kind, sub), size = detail
    length = size if kind == 3 else int(rng.integers(0, 4))
    if sub_kind.value == 1 and sub[0] in cdr._DTYPES:
        dtype = np.dtype(cdr._DTYPES[sub[0]])
        if dtype.kind == 'f':
            return rng.normal(size=length).astype(dtype)
        if dtype.kind == 'b':
            return rng.integers(0, 2, length).astype(bool)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, length, endpoint=True).astype(dtype)
    return [_value(store, sub_kind.value, sub, rng, depth + 1) for _ in range(length)]


@pytest.mark.parametrize('distro', msgs.DISTROS)
@pytest.mark.parametrize('typename', TYPES)
def test_generated_serialiser_gives_rosbags_bytes(distro, typename):
    store = msgs.typestore_for(distro)
    serialize = cdr.serializer(store, typename)
    if serialize is None:
        pytest.skip(f'{typename}: left to rosbags')
    rng = np.random.default_rng(abs(hash((distro, typename))) % 2 ** 32)
    for _ in range(60):
        msg = _random(store, typename, rng)
        assert serialize(msg) == bytes(store.serialize_cdr(msg, typename)), serialize.source


def test_the_hot_types_are_generated():
    """The types recorded at every robot event must not fall back to rosbags."""
    for distro in msgs.DISTROS:
        store = msgs.typestore_for(distro)
        for typename in ('sensor_msgs/msg/Range', 'nav_msgs/msg/Odometry', 'tf2_msgs/msg/TFMessage',
                         'std_msgs/msg/Int16MultiArray', 'geometry_msgs/msg/Twist', 'rosgraph_msgs/msg/Clock',
                         'std_msgs/msg/String', 'std_msgs/msg/Bool', 'visualization_msgs/msg/MarkerArray'):
            assert cdr.serializer(store, typename) is not None, typename


def test_the_runtime_messages_serialise_as_rosbags_does():
    """Messages as the nodes build them (factories' defaults, numpy fields, non-ASCII text)."""
    msgs.use_distro('jazzy')
    store = msgs.typestore
    stamp = msgs.stamp(12.345)
    cases = [
        msgs.Range(header=msgs.Header(stamp=stamp, frame_id='thymio1/proximity_left_link'),
                   radiation_type=msgs.Range.INFRARED, field_of_view=0.3, min_range=0.0, max_range=0.12,
                   range=math.inf),
        msgs.Odometry(header=msgs.Header(stamp=stamp, frame_id='map'), child_frame_id='thymio10/base_link'),
        msgs.TFMessage(transforms=[msgs.transform_stamped(stamp, 'map', 'a/odom', (1.0, 2.0, 3.0)),
                                   msgs.transform_stamped(stamp, 'a/odom', 'a/base_link', (0.5, 0.25, -1.0))]),
        msgs.Int16MultiArray(data=msgs.int16_array([1, -2, 3, 1023, 0, 0, 7])),
        msgs.Int16MultiArray(),
        msgs.Twist(), msgs.Clock(clock=stamp), msgs.String(data='{"ä": 1}'), msgs.Bool(data=True),
    ]
    for msg in cases:
        typename = msgs.type_name(type(msg)) if not hasattr(msg, '__msgtype__') else msg.__msgtype__
        assert cdr.serializer(store, typename)(msg) == bytes(store.serialize_cdr(msg, typename))
