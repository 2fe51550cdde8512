"""Embedded bags carry one ROS 2 distro's message definitions, the ones the nodes filled."""
import pytest
import yaml
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore

from thymio_road.nodes import msgs
from thymio_road.runtime.run import run_scenario
from thymio_road.scenario import ScenarioError, load_scenario


@pytest.fixture(autouse=True)
def _restore_distro():
    yield
    msgs.use_distro(msgs.DEFAULT_DISTRO)


@pytest.mark.parametrize('distro,store,has_variance', [
    ('jazzy', Stores.ROS2_JAZZY, True), ('humble', Stores.ROS2_HUMBLE, False)])
def test_range_messages_decode_with_the_recorded_distro(tmp_path, distro, store, has_variance):
    scenario = load_scenario('oval', robots=2, duration=1.0, ros_distro=distro)
    run_scenario(scenario, tmp_path, progress=False, picture=False)
    meta = yaml.safe_load((tmp_path / 'bag' / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert meta['ros_distro'] == distro and meta['version'] == 8
    typestore = get_typestore(store)
    ranges = 0
    with Reader(tmp_path / 'bag') as reader:
        for conn in reader.connections:
            if conn.msgtype == 'sensor_msgs/msg/Range':
                assert ('float32 variance' in conn.msgdef.data) is has_variance
        for conn, _, raw in reader.messages():
            if conn.topic.startswith('/thymio1/proximity/'):
                msg = typestore.deserialize_cdr(raw, conn.msgtype)  # raises on the other distro's layout
                assert hasattr(msg, 'variance') is has_variance
                assert msg.max_range > 0
                ranges += 1
    assert ranges >= 7 * 9


def test_unknown_distro_is_refused():
    with pytest.raises(ScenarioError, match="scenario.ros_distro: must be one of humble, jazzy, got 'iron'"):
        load_scenario('oval', ros_distro='iron')
