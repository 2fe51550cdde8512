"""e-puck sensor layout (eqs. 1, 2) and frame transforms (eqs. 8, 9)."""
import numpy as np
import pytest

from swarm_comm.geometry import EPuckGeometry, to_world, wrap_angle


def test_emitter_and_detector_straddle_the_sensor_by_0127_cm():
    g = EPuckGeometry()
    e, d = g.emitters_local(), g.detectors_local()
    np.testing.assert_allclose(np.hypot(*(e - d).T), 2 * 0.127)
    centre = (e + d) / 2
    np.testing.assert_allclose(np.hypot(*centre.T), 3.5)
    np.testing.assert_allclose(np.arctan2(centre[:, 1], centre[:, 0]), g.sensor_angles)
    # eq. 1: the emitter is on the counter-clockwise side of the sensor
    offset = e - centre
    assert np.all(centre[:, 0] * offset[:, 1] - centre[:, 1] * offset[:, 0] > 0)


def test_public_layout_is_symmetric():
    g = EPuckGeometry()
    np.testing.assert_allclose(np.sort(g.sensor_angles), np.sort(-g.sensor_angles))
    assert g.sensor_count == 8


def test_to_world_rotates_then_translates():
    local = np.array([[1.0, 0.0], [0.0, 2.0]])
    world = to_world(local, np.array([10.0, 5.0]), np.pi / 2)
    np.testing.assert_allclose(world, [[10.0, 6.0], [8.0, 5.0]], atol=1e-12)
    batch = to_world(local, np.zeros((3, 2)), np.zeros(3))
    assert batch.shape == (3, 2, 2)


def test_wrap_angle():
    np.testing.assert_allclose(wrap_angle(np.array([3 * np.pi, -np.pi / 2])), [-np.pi, -np.pi / 2])


@pytest.mark.parametrize('field,value', [('sensor_radius', 0.0), ('pair_offset', -1.0), ('body_radius', np.nan)])
def test_bad_geometry_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        EPuckGeometry(**{field: value})
