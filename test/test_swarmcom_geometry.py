# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

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


def test_public_layouts_put_the_sensors_of_the_robot_models_inside_the_body():
    from swarm_comm.geometry import epuck_geometry, EPUCK_LAYOUTS
    assert set(EPUCK_LAYOUTS) == {'webots-driver', 'webots-proto', 'enki'}
    np.testing.assert_allclose(epuck_geometry('webots-driver').emitters_local(), EPuckGeometry().emitters_local())
    proto = epuck_geometry('webots-proto')
    centre = (proto.emitters_local() + proto.detectors_local()) / 2
    radius = np.hypot(*centre.T)
    assert radius.min() == pytest.approx(3.1) and radius.max() == pytest.approx(np.hypot(3.0, 1.5))
    assert np.all(radius < proto.body_radius) and proto.body_radius == 3.5
    # facing follows the model's own orientations, not the polar angle of the position (ps0: 17.2° vs 18.4°)
    assert np.rad2deg(proto.sensor_angles[0]) == pytest.approx(-17.2)
    assert np.rad2deg(np.arctan2(centre[0, 1], centre[0, 0])) == pytest.approx(-18.43, abs=0.01)
    np.testing.assert_allclose(np.hypot(*(proto.emitters_local() - proto.detectors_local()).T), 2 * 0.127)
    enki = epuck_geometry('enki')
    middle = (enki.emitters_local() + enki.detectors_local()) / 2
    assert np.hypot(*middle.T).max() == pytest.approx(np.hypot(2.6, 2.6))
    with pytest.raises(ValueError, match='layout'):
        epuck_geometry('thymio')
    with pytest.raises(ValueError, match='sensor_positions'):
        EPuckGeometry(sensor_positions=np.zeros((3, 2)))
