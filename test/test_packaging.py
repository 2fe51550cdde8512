# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""package.xml declares what the code imports from ROS, and only keys rosdep can resolve."""
from pathlib import Path
import re
import xml.etree.ElementTree as ET

ROOT = Path(__file__).resolve().parents[1]
#: pip keys with a rule in rosdep's python.yaml (the others make `rosdep install` fail).
PIP_KEYS_WITH_A_RULE = {'python3-rosbags-pip'}


def _depends():
    root = ET.parse(ROOT / 'package.xml').getroot()
    return {el.text.strip() for el in root if el.tag.endswith('depend')}


def test_only_resolvable_pip_keys_and_nothing_unused():
    depends = _depends()
    pip_keys = {d for d in depends if d.endswith('-pip')}
    assert pip_keys <= PIP_KEYS_WITH_A_RULE, pip_keys - PIP_KEYS_WITH_A_RULE
    assert not {'tf2_ros', 'python3-transforms3d'} & depends
    assert 'transforms3d' not in (ROOT / 'setup.py').read_text()


def test_every_ros_package_the_code_imports_is_declared():
    imported = set()
    for path in list((ROOT / 'thymio_road').rglob('*.py')) + list((ROOT / 'launch').glob('*.py')):
        text = path.read_text()
        imported |= set(re.findall(r'^\s*from (\w+)\.(?:msg|srv) import', text, flags=re.M))
        imported |= {'rclpy'} if re.search(r'^\s*(?:import|from) rclpy\b', text, flags=re.M) else set()
    assert imported >= {'rclpy', 'rcl_interfaces', 'std_srvs'}
    assert imported <= _depends(), imported - _depends()
