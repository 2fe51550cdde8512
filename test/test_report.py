# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The HTML report as a reader sees it: plain table cells, whole-run time axes, no empty plots."""
import copy
import re

import matplotlib.pyplot as plt
import pytest
from test_analysis import _write_synthetic, SYNTHETIC_MAP

from thymio_road.analysis import analyze, read_recording, report
from thymio_road.analysis.mapsource import resolve_map


@pytest.fixture(scope='module')
def synthetic(tmp_path_factory):
    """30 s recording: laps timed at 9..27 s, a wait, IR, a trip; no contacts."""
    folder = tmp_path_factory.mktemp('report')
    _write_synthetic(folder / 'bag', SYNTHETIC_MAP)
    rec = read_recording(folder / 'bag')
    source = resolve_map(rec, None, None)
    return rec, source, analyze(rec, source)


@pytest.fixture
def figures(monkeypatch):
    """The report's matplotlib figures, kept when the report closes them."""
    kept = {}
    close = plt.close

    def keep(fig=None):
        for ax in getattr(fig, 'axes', []):
            kept[ax.get_title()] = fig
        close(fig)
    monkeypatch.setattr(report.plt, 'close', keep)
    return kept


def _cells(page):
    return re.findall(r'<td>(.*?)</td>', page, flags=re.S)


def test_table_cells_hold_no_raw_json(synthetic, tmp_path):
    rec, source, analysis = synthetic
    files = report.write_report(analysis, rec, source, tmp_path)
    cells = _cells(files['index.html'].read_text())
    assert cells
    assert not [c for c in cells if re.search(r'[{}\[\]]|&quot;', c)]
    # a nested value reads as "key: value"
    assert any(c.startswith('c: ') for c in cells), cells  # throughput per road


def test_timeline_axis_covers_the_whole_run(synthetic, tmp_path, figures):
    rec, source, analysis = synthetic
    report.write_report(analysis, rec, source, tmp_path)
    (fig,) = [f for title, f in figures.items() if title.startswith('Lap times')]
    lo, hi = fig.axes[-1].get_xlim()
    run = analysis.recording
    assert lo <= run['start_s'] and hi >= run['end_s'] == pytest.approx(30.0)


def test_no_empty_lap_plot_and_the_page_says_why(synthetic, tmp_path, figures):
    rec, source, analysis = synthetic
    contacts = copy.copy(analysis)
    contacts.laps = []
    contacts.episodes = [{'a': 'r1', 'b': 'r3', 'kind': 'near miss', 'start_s': 20.0, 'end_s': 21.0,
                          'min_gap_mm': 12.0}]
    files = report.write_report(contacts, rec, source, tmp_path)
    (fig,) = [f for title, f in figures.items() if title.startswith('Collisions')]
    # the contact panel alone
    assert [ax.get_title() for ax in fig.axes] == ['Collisions (red) and near misses (orange)']
    assert fig.axes[0].get_xlim()[1] >= 30.0
    assert 'no lap was timed' in files['index.html'].read_text().lower()


def test_nothing_to_plot_over_time_gives_no_timeline(synthetic, tmp_path):
    rec, source, analysis = synthetic
    bare = copy.copy(analysis)
    bare.laps, bare.episodes = [], []
    files = report.write_report(bare, rec, source, tmp_path)
    assert 'timeline.png' not in files
    assert 'No collisions or near misses' in files['index.html'].read_text()
