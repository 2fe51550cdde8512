# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""`thymio-road map export`: the vector print reproduces the simulator's raster, to the millimetre.

The exported SVG is rasterised with resvg and the PDF with PDFium (both from PyPI, independent of
the exporter), then compared with ``RoadMap.grey``; widths, radii and bit lengths are measured on
renders of small windows at 10 px/mm.
"""
from __future__ import annotations

import io
import math
import re

import numpy as np
from PIL import Image
import pypdfium2 as pdfium
import pytest
import resvg_py
from scipy import ndimage
import yaml

from thymio_road.map.barcode import BIT_LENGTH
from thymio_road.map.export import export_map, ExportError, map_shapes, PAGES, printed_tiles, PT_PER_MM, tile_layout
from thymio_road.map.geometry import Arc
from thymio_road.map.loader import parse_map

#: One open road with a left and a right turn, two barcodes (one on an arc) and a mark. Printing is
#: under test here, not reading: the map lowers the loader's limit for barcodes on arcs.
MAP = """
name: export_test
size: [0.8, 0.6]
barcode_min_arc_radius: 0.1
roads:
  - id: s
    start: [0.08, 0.12, 0]
    pieces:
      - straight: 0.25
      - arc: {radius: 0.15, angle_deg: 90}
      - straight: 0.05
      - arc: {radius: 0.12, angle_deg: -90}
      - straight: 0.15
barcodes:
  - {id: on_straight, road: s, at: 0.05, code: 5}
  - {id: on_left_arc, road: s, at: 0.29, code: 6}
marks:
  - {id: mark, road: s, at: 0.76}
"""
PX_PER_MM = 10


@pytest.fixture(scope='module')
def road_map():
    return parse_map(yaml.safe_load(MAP), 'export_test.yaml')


@pytest.fixture(scope='module')
def svg(road_map, tmp_path_factory):
    path = tmp_path_factory.mktemp('export') / 'map.svg'
    export_map(road_map, path)
    return path.read_text()


def _render_svg(text: str, **options) -> np.ndarray:
    png = resvg_py.svg_to_bytes(svg_string=text, **options)
    return np.asarray(Image.open(io.BytesIO(png)).convert('L'), dtype=float) / 255


def _window(svg_text: str, road_map, x0, y0, x1, y1, k=PX_PER_MM):
    """Render the map window [x0, x1] × [y0, y1] (metres) at k px/mm; row 0 at y1."""
    h = road_map.height * 1000
    X0, Y0, X1, Y1 = (v * 1000 for v in (x0, y0, x1, y1))
    text = re.sub(r'width="[^"]*" height="[^"]*" viewBox="[^"]*"',
                  f'width="{(X1 - X0) * k:.0f}" height="{(Y1 - Y0) * k:.0f}" '
                  f'viewBox="{X0} {h - Y1} {X1 - X0} {Y1 - Y0}"', svg_text, count=1)
    img = _render_svg(text)

    def sample(x, y):
        """Bilinear grey at map points (metres)."""
        col = (np.asarray(x) * 1000 - X0) * k - 0.5
        row = (Y1 - np.asarray(y) * 1000) * k - 0.5
        return ndimage.map_coordinates(img, [row, col], order=1, mode='nearest')
    return sample


def _interior(road_map, margin=0.001):
    """Road pixels at least `margin` inside the road's edges, and pixels far from any ink."""
    rows, cols = road_map.shape
    ys, xs = (np.mgrid[0:rows, 0:cols] + 0.5) * road_map.resolution
    best = np.full(road_map.shape, np.inf)
    for road in road_map.roads:
        for piece in road.pieces:
            s, u = piece.local(xs, ys)
            inside = (s >= 0) & (s <= piece.length)
            best = np.where(inside, np.minimum(best, np.abs(u)), best)
    road = (road_map.road_index >= 0) & (best <= road_map.road_width / 2 - margin)
    ink = (road_map.grey < 1.0) | (road_map.road_index >= 0) | (road_map.barcode_index >= 0)
    paper = ~ndimage.binary_dilation(ink, iterations=2)
    in_bar = (road_map.barcode_index >= 0) & (road_map.road_index < 0)
    # each bit colour on its own, so that pixels on a boundary between two bits are left out
    bars = ndimage.binary_erosion(in_bar & (road_map.grey == 0), iterations=2) | \
        ndimage.binary_erosion(in_bar & (road_map.grey == 1), iterations=2)
    return road, paper, bars


def test_svg_raster_matches_the_simulator_raster(road_map, svg):
    img = _render_svg(svg, dpi=25.4, shape_rendering='crisp_edges')[::-1]  # 1 px per mm, row 0 at y = 0
    assert img.shape == road_map.shape
    road, paper, bars = _interior(road_map)
    diff = np.abs(img - road_map.grey)
    assert road.sum() > 20000 and bars.sum() > 500
    assert diff[road].max() <= 0.01           # the gradients, straight and radial (8-bit rounding)
    assert diff[bars].max() <= 0.01           # barcode bits: black and white where the raster has them
    assert (img[paper] == 1.0).all()          # nothing printed where the raster is paper
    assert (diff <= 0.02).mean() >= 0.995     # the rest is where a pixel centre sits on an edge


def test_pdf_raster_matches_the_simulator_raster(road_map, tmp_path):
    path = tmp_path / 'map.pdf'
    export_map(road_map, path)
    page = pdfium.PdfDocument(path)[0]
    w, h = page.get_size()
    assert (w / PT_PER_MM, h / PT_PER_MM) == pytest.approx((800, 600), abs=0.01)  # 1:1
    k = 4  # px per mm, averaged down to the raster's 1 mm pixels
    img = np.asarray(page.render(scale=k / PT_PER_MM).to_pil().convert('L'), dtype=float) / 255
    rows, cols = road_map.shape
    img = img[-rows * k:, :cols * k].reshape(rows, k, cols, k).mean(axis=(1, 3))[::-1]
    road, paper, bars = _interior(road_map)
    diff = np.abs(img - road_map.grey)
    assert diff[road].max() <= 0.02
    # PDFium places edges a fraction of a pixel (~0.15 mm) off; bits are pure black or white,
    # so along a radial bit boundary that shows as a few per cent of grey
    assert diff[bars].max() <= 0.06
    assert (img[paper] >= 0.999).all()


def _edges(profile: np.ndarray, positions: np.ndarray) -> tuple[float, float]:
    """Where a road profile (positions increasing to the road's left) starts and ends: the
    black edge at the half-way crossing of the step from black to paper, the white end where a
    straight-line fit of the gradient (away from that step) reaches paper white.
    """
    k = int(np.argmin(profile))                       # darkest sample, at the black edge
    j = k - 1
    while profile[j] < 0.5:                           # towards the right, into the paper
        j -= 1
    f = (0.5 - profile[j + 1]) / (profile[j] - profile[j + 1])
    black_edge = positions[j + 1] + f * (positions[j] - positions[j + 1])
    ramp = (profile > 0.1) & (profile < 0.9) & (positions > black_edge + 0.0005)
    slope, intercept = np.polyfit(positions[ramp], profile[ramp], 1)
    return float((1.0 - intercept) / slope), float(black_edge)


def test_road_width_on_a_straight_and_on_both_turns_within_half_a_millimetre(road_map, svg):
    road = road_map.roads[0]
    width = road_map.road_width
    checks = []
    for piece in road.pieces:
        mid = piece.length / 2
        x, y, th = piece.pose_at(mid)
        # across the road, positive left; not into the bits, which start 2 mm right of the road
        u = np.linspace(-0.0165, 0.025, 831)
        px, py = x - np.sin(th) * u, y + np.cos(th) * u
        sample = _window(svg, road_map, px.min() - 0.003, py.min() - 0.003, px.max() + 0.003,
                         py.max() + 0.003)
        white, black = _edges(sample(px, py), u)
        checks.append((type(piece).__name__, white, black))
        assert white == pytest.approx(width / 2, abs=0.0005), checks[-1]   # white on the left edge
        assert black == pytest.approx(-width / 2, abs=0.0005), checks[-1]  # black on the right edge
        assert white - black == pytest.approx(width, abs=0.0005)
        if isinstance(piece, Arc):  # the centre line lies on the arc's radius
            assert abs((white + black) / 2) < 0.0005
    assert {c[0] for c in checks} == {'Straight', 'Arc'}
    assert any(isinstance(p, Arc) and p.turn < 0 for p in road.pieces)


def _bit_edges(svg, road_map, barcode):
    """Arc lengths where the bits change colour, measured along the middle of the bit strip."""
    road = road_map.road(barcode.road)
    u_in, u_out = barcode.lateral_span(road_map.road_width)
    u = -(u_in + u_out) / 2
    s = np.linspace(barcode.at - 0.01, barcode.end + 0.01, 3000)
    pts = []
    for si in s:
        x, y, th = road.pose_at(si)
        pts.append((x - np.sin(th) * u, y + np.cos(th) * u))
    pts = np.array(pts)
    sample = _window(svg, road_map, pts[:, 0].min() - 0.003, pts[:, 1].min() - 0.003,
                     pts[:, 0].max() + 0.003, pts[:, 1].max() + 0.003)
    grey = sample(pts[:, 0], pts[:, 1])
    black = grey < 0.5
    k = np.flatnonzero(black[1:] != black[:-1])
    f = (0.5 - grey[k]) / (grey[k + 1] - grey[k])
    return s[k] + f * (s[k + 1] - s[k]), black


@pytest.mark.parametrize('name', ['on_straight', 'on_left_arc', 'mark'])
def test_barcode_bits_are_2_7_cm_within_half_a_millimetre(road_map, svg, name):
    barcode = next(b for b in road_map.barcodes if b.id == name)
    edges, _ = _bit_edges(svg, road_map, barcode)
    bits = barcode.bit_values
    # colour changes expected at the start, between differing bits, and at the end
    expected = [barcode.at] + [barcode.at + k * BIT_LENGTH for k in range(1, len(bits))
                               if bits[k] != bits[k - 1]]
    if bits[-1] == 1:
        expected.append(barcode.end)
    assert len(edges) == len(expected), (edges, expected)
    assert np.abs(edges - np.array(expected)).max() <= 0.0005
    if name == 'on_straight':  # code 5 = trigger 1, then 1, 0, 1 (LSB first)
        assert bits == (1, 1, 0, 1)
        assert edges[1] - edges[0] == pytest.approx(2 * BIT_LENGTH, abs=0.0005)


def test_barcode_strip_is_where_the_reading_sensor_runs(road_map, svg):
    barcode = next(b for b in road_map.barcodes if b.id == 'on_straight')
    road = road_map.road(barcode.road)
    x, y, th = road.pose_at(barcode.at + BIT_LENGTH / 2)  # the black trigger bit
    u = np.linspace(-0.045, -0.005, 801)
    px, py = x - np.sin(th) * u, y + np.cos(th) * u
    sample = _window(svg, road_map, px.min() - 0.003, py.min() - 0.003, px.max() + 0.003, py.max() + 0.003)
    black = sample(px, py) < 0.5
    strip = u[black & (u < -road_map.road_width / 2 - 0.0005)]
    u_in, u_out = barcode.lateral_span(road_map.road_width)
    assert -strip.max() == pytest.approx(u_in, abs=0.0005)
    assert -strip.min() == pytest.approx(u_out, abs=0.0005)


# --- pages ---------------------------------------------------------------------------------------

def test_tiles_cover_the_sheet_with_overlap_and_fewest_pages():
    layout = tile_layout(1800, 1100, 'A4')
    assert layout.cols * layout.rows == min(
        math.ceil((1800 - 15) / (w - 20 - 15)) * math.ceil((1100 - 15) / (h - 20 - 15))
        for w, h in (PAGES['A4'], PAGES['A4'][::-1]))
    assert (layout.cols - 1) * layout.step_x + layout.content_w >= 1800
    assert (layout.rows - 1) * layout.step_y + layout.content_h >= 1100
    assert layout.content_w - layout.step_x == pytest.approx(15.0)
    assert tile_layout(800, 600, 'A0').cols * tile_layout(800, 600, 'A0').rows == 1
    with pytest.raises(ExportError, match='B5'):
        tile_layout(800, 600, 'B5')


def test_pdf_tiles_are_1_to_1_pieces_of_the_map(road_map, tmp_path):
    path = tmp_path / 'tiles.pdf'
    export_map(road_map, path, page='A4')
    doc = pdfium.PdfDocument(path)
    layout = tile_layout(800, 600, 'A4')
    tiles = printed_tiles(layout, map_shapes(road_map))
    order = sorted(tiles, key=lambda ij: (-ij[1], ij[0]))  # rows from the top, left to right
    assert len(doc) == 1 + len(tiles)
    preview = doc[0]
    text = preview.get_textpage().get_text_range()
    assert 'export_test' in text and f'{len(tiles)} A4 tile pages' in text
    grey = road_map.grey
    margin = 10.0
    for n in range(1, len(doc)):
        page = doc[n]
        w, h = (v / PT_PER_MM for v in page.get_size())
        assert sorted((round(w), round(h))) == [210, 297]
        col, j = order[n - 1]
        row = layout.rows - 1 - j
        wx, wy = col * layout.step_x, j * layout.step_y
        img = np.asarray(page.render(scale=1 / PT_PER_MM * 4).to_pil().convert('L'), dtype=float) / 255
        H = int(round(h))
        img = img[-H * 4:, :int(round(w)) * 4].reshape(H, 4, -1, 4).mean(axis=(1, 3))[::-1]
        # the content area, 1:1, against the raster's window at the tile's map offset
        cw = int(min(layout.content_w, 800 - wx)) - 1
        ch = int(min(layout.content_h, 600 - wy)) - 1
        r0, c0 = int(margin), int(margin)
        tile = img[r0 + 1:r0 + ch, c0 + 1:c0 + cw]
        ref = grey[int(wy) + 1:int(wy) + ch, int(wx) + 1:int(wx) + cw]
        road, _, _ = _interior(road_map)
        inner = road[int(wy) + 1:int(wy) + ch, int(wx) + 1:int(wx) + cw]
        if inner.any():
            assert np.abs(tile - ref)[inner].max() <= 0.03, f'page {n}'
        text = page.get_textpage().get_text_range()
        assert f'row {row + 1} of {layout.rows}' in text and f'column {col + 1} of {layout.cols}' in text


def test_svg_pages_and_preview_files(road_map, tmp_path):
    files = export_map(road_map, tmp_path / 'map.svg', page='A3').files
    layout = tile_layout(800, 600, 'A3')
    names = sorted(p.name for p in files)
    assert names[0] == 'map-preview.svg' and 'map.svg' in names
    assert len(files) == 2 + len(printed_tiles(layout, map_shapes(road_map)))
    tile = next(p for p in files if re.search(r'-r\d+c\d+\.svg$', p.name)).read_text()
    assert 'width="420mm" height="297mm"' in tile or 'width="297mm" height="420mm"' in tile
    assert 'stroke-dasharray' in tile  # cut marks where a neighbour overlaps
    whole = (tmp_path / 'map.svg').read_text()
    assert whole.count('<radialGradient') == 2 and whole.count('<linearGradient') == 3
    assert 'width="800mm" height="600mm"' in whole


def test_cli_map_export(tmp_path, capsys):
    from thymio_road.cli.main import main
    out = tmp_path / 'oval.pdf'
    assert main(['map', 'export', 'oval', '--format', 'pdf', '--page', 'A3', '--out', str(out)]) == 0
    assert "map 'oval' at 1:1" in capsys.readouterr().out
    assert len(pdfium.PdfDocument(out)) > 2
    assert main(['map', 'export', 'oval', '--out', str(tmp_path / 'oval.png')]) == 2
    assert 'unknown format' in capsys.readouterr().err


def _cut_regions(road_map, layout, overlap=15.0):
    """Each tile's part of the sheet between its cut marks, as a window of the simulator's raster
    (an independent drawing of the same map); cut there, the tiles make up the sheet.
    """
    grey, px = road_map.grey, 1000 * road_map.resolution
    for j in range(layout.rows):
        for i in range(layout.cols):
            x0 = i * layout.step_x + overlap / 2 if i else 0.0
            y0 = j * layout.step_y + overlap / 2 if j else 0.0
            x1, y1 = (i + 1) * layout.step_x + overlap / 2, (j + 1) * layout.step_y + overlap / 2
            yield (i, j), grey[int(y0 / px):int(y1 / px) + 1, int(x0 / px):int(x1 / px) + 1]


def test_final_map_on_a4_prints_only_tiles_with_ink(tmp_path, capsys):
    from thymio_road.cli.main import main
    from thymio_road.map.loader import load_map
    from thymio_road.scenario import find_config
    final = load_map(find_config('maps', 'final'))
    layout = tile_layout(final.width * 1000, final.height * 1000, 'A4')
    assert layout.cols * layout.rows == 840                      # the whole grid: mostly paper
    tiles = printed_tiles(layout, map_shapes(final))
    for ij, region in _cut_regions(final, layout):
        if ij in tiles:
            assert region.min() < 0.95, f'tile {ij} is printed but blank'
        else:
            assert region.min() > 0.95, f'tile {ij} has ink but is not printed'  # (edge anti-aliasing)
    out = tmp_path / 'final-a4.pdf'
    assert main(['map', 'export', 'final', '--page', 'A4', '--out', str(out)]) == 0
    said = capsys.readouterr().out
    doc = pdfium.PdfDocument(out)
    assert len(doc) == 1 + len(tiles) == 240
    assert f'{len(doc)} A4 pages' in said and f'{840 - len(tiles)} blank tiles not printed' in said
    assert f'page {len(tiles)} of {len(tiles)}' in doc[len(doc) - 1].get_textpage().get_text_range()
    # what a printer gets: every tile page shows ink in its map area (2 px/mm)
    for n in range(1, len(doc)):
        img = np.asarray(doc[n].render(scale=2 / PT_PER_MM).to_pil().convert('L'), dtype=float)
        assert img[20:-20, 20:-20].min() < 240, f'page {n} of the PDF is blank'
