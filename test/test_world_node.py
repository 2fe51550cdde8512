"""The world node's topics as a ROS user sees them (embedded runtime)."""
import math

from thymio_road.nodes import msgs
from thymio_road.runtime.run import Graph
from thymio_road.scenario import load_scenario


def _collect(graph, topic, msg_type):
    got = []
    graph.world_node.node.create_subscription(msg_type, topic, got.append, msgs.SENSOR)
    return got


def test_ground_sensors_are_ranges_as_the_real_thymio_driver_publishes_them():
    """jeguzzi/ros-thymio: ground/left|right are INFRARED Range, 0.3 rad, 9..30 mm, -inf when the
    sensor sees the ground (raw value >= threshold), +inf when it does not."""
    graph = Graph(load_scenario('oval', robots=1))
    left = _collect(graph, '/thymio1/ground/left', msgs.Range)
    right = _collect(graph, '/thymio1/ground/right', msgs.Range)
    raw = _collect(graph, '/thymio1/prox/ground/delta', msgs.Int16MultiArray)
    graph.world_node.ground_threshold = 600  # between the road's black edge and white paper
    graph.run(3.0)
    assert len(left) == len(right) == len(raw) == 30
    assert left[0].header.frame_id == 'thymio1/ground_left_link'
    assert right[0].header.frame_id == 'thymio1/ground_right_link'
    for msg in left + right:
        assert msg.radiation_type == msgs.Range.INFRARED
        assert math.isclose(msg.field_of_view, 0.3, rel_tol=1e-6)
        assert math.isclose(msg.min_range, 0.009, rel_tol=1e-6) and math.isclose(msg.max_range, 0.03, rel_tol=1e-6)
    for l_msg, r_msg, values in zip(left, right, raw):
        for msg, value in ((l_msg, values.data[0]), (r_msg, values.data[1])):
            assert msg.range == (-math.inf if value >= 600 else math.inf)
    # the robot follows the road with its left sensor on the grey; the right one is on white paper
    assert {m.range for m in right} == {-math.inf}


def test_ground_sensor_frames_are_in_tf_static():
    graph = Graph(load_scenario('oval', robots=1))
    got = []
    graph.world_node.node.create_subscription(msgs.TFMessage, '/tf_static', got.append, msgs.LATCHED)
    graph.run(0.0)
    frames = {tf.child_frame_id: tf for tf in got[0].transforms}
    assert {'thymio1/ground_left_link', 'thymio1/ground_right_link'} <= set(frames)
    tf = frames['thymio1/ground_left_link'].transform
    assert math.isclose(tf.translation.x, 0.072) and math.isclose(tf.translation.y, 0.0115)
    assert math.isclose(tf.rotation.y, math.sqrt(0.5))  # the cone points down
