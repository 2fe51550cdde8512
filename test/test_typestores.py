# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The interface's typestore holds rosbags' own definitions of its types, read back from disk."""
import pytest
from rosbags.typesys import get_typestore, Stores

from thymio_road.nodes import msgs, typestores


@pytest.mark.parametrize('distro', msgs.DISTROS)
def test_the_same_definitions_hashes_and_bytes_as_rosbags_store(distro, tmp_path, monkeypatch):
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path))
    store = typestores.interface_typestore(distro, msgs.TYPES.values())
    full = get_typestore(getattr(Stores, typestores.STORES[distro]))
    assert set(msgs.TYPES.values()) <= set(store.fielddefs)
    for typename, definition in store.fielddefs.items():
        assert repr(definition) == repr(full.fielddefs[typename])
        assert store.generate_msgdef(typename, ros_version=2) == full.generate_msgdef(typename, ros_version=2)
        assert store.hash_rihs01(typename) == full.hash_rihs01(typename)
    msg = store.types['sensor_msgs/msg/Range'].__dataclass_fields__  # Humble's has no variance
    assert ('variance' in msg) == (distro == 'jazzy')
    clock = store.types['rosgraph_msgs/msg/Clock'](store.types['builtin_interfaces/msg/Time'](sec=3, nanosec=7))
    like = full.types['rosgraph_msgs/msg/Clock'](full.types['builtin_interfaces/msg/Time'](sec=3, nanosec=7))
    assert bytes(store.serialize_cdr(clock, 'rosgraph_msgs/msg/Clock')) == \
        bytes(full.serialize_cdr(like, 'rosgraph_msgs/msg/Clock'))


def test_read_back_without_rosbags_store(tmp_path, monkeypatch):
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path))
    typestores.interface_typestore('jazzy', ['nav_msgs/msg/Odometry'])
    assert len(list((tmp_path / 'typestores').glob('*.json'))) == 1
    monkeypatch.setattr(typestores, '_from_full_store', lambda *a: pytest.fail('read rosbags store again'))
    store = typestores.interface_typestore('jazzy', ['nav_msgs/msg/Odometry'])
    assert {'nav_msgs/msg/Odometry', 'geometry_msgs/msg/PoseWithCovariance', 'std_msgs/msg/Header'} <= \
        set(store.fielddefs)
    (next((tmp_path / 'typestores').glob('*.json'))).write_text('{not json')  # a damaged file: built again
    monkeypatch.undo()
    monkeypatch.setenv('THYMIO_ROAD_CACHE', str(tmp_path))
    assert 'nav_msgs/msg/Odometry' in typestores.interface_typestore('jazzy', ['nav_msgs/msg/Odometry']).fielddefs
