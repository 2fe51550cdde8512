# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Output paths are checked without creating anything (the CLI cases are in test_bad_inputs.py)."""
import pytest

from thymio_road.cli.outputs import check_out_dir, check_out_file, OutputError


def test_a_new_nested_folder_is_fine_and_nothing_is_created(tmp_path):
    check_out_dir(tmp_path / 'a' / 'b')
    check_out_file(tmp_path / 'c' / 'd.json')
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_a_folder_is_wanted_and_the_reverse(tmp_path):
    (tmp_path / 'f').write_text('x')
    with pytest.raises(OutputError, match=r'--out .*f: is a file, not a folder'):
        check_out_dir(tmp_path / 'f')
    with pytest.raises(OutputError, match=r'--out .*f/run: .*f is a file, so no folder can be made under it'):
        check_out_dir(tmp_path / 'f' / 'run')
    with pytest.raises(OutputError, match=r'--report .*: is a folder, not a file'):
        check_out_file(tmp_path, '--report')


def test_a_name_longer_than_the_file_system_allows(tmp_path):
    with pytest.raises(OutputError, match='a name in the path has 256 bytes, more than the 255'):
        check_out_dir(tmp_path / ('x' * 256))
    check_out_dir(tmp_path / ('x' * 255))


def test_calibrate_writes_into_a_new_folder(tmp_path, monkeypatch):
    """The check accepts a folder that does not exist yet, so the command must make it."""
    import thymio_road.calibration as calibration
    from thymio_road.cli.main import main
    monkeypatch.setattr(calibration, 'calibrate', lambda n, seed, world, parked=0: {
        k: {'speed_factor': 1.0, 'wheel_balance': 1.0} for k in range(n)})
    out = tmp_path / 'new' / 'cal.yaml'
    assert main(['calibrate', '--robots', '2', '--out', str(out)]) == 0
    assert 'thymio2' in out.read_text()
