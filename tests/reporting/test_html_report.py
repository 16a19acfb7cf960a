"""The HTML report (`tarsim report OUT --html FILE`): one self-contained page, checked in a real headless Chromium
(skipped with the reason where none is installed): it loads with no console error, every figure renders the marks
its data call for, hovering shows the run, and a screenshot has the stored reference properties (page width,
figure sizes, figure areas not blank)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tarsim.cli import main

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from test_figures_read import make_lines, study

from chromium_page import Page, chromium_or_skip

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "html_report_reference.json"
READY = "document.body && document.body.dataset.rendered"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A study of 2 strategies x 2 topics x 2 seeds as ledgers, and its page (one stopping rule)."""
    tmp = tmp_path_factory.mktemp("report")
    folder = tmp / "out" / "ledgers"
    folder.mkdir(parents=True)
    for i, lines in enumerate(study(sweep="demo", build=make_lines)):
        (folder / f"{i}.jsonl").write_text("\n".join(lines) + "\n")
    page = tmp / "report.html"
    assert (
        main(
            [
                "report",
                str(tmp / "out"),
                "--html",
                str(page),
                "--stopping",
                "nonrel:2",
                "--effort",
                "judge",
                "--effort",
                "sent",
            ]
        )
        == 0
    )
    return page


def test_the_page_is_self_contained(report):
    text = report.read_text()
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|@import|<iframe", text)  # nothing fetched when viewed
    assert "vegaEmbed" in text and "tarsim report" in text
    for heading in ("Versions", "Configuration", "Tables", "Figures", "Reproduce"):
        assert f"<h2>{heading}</h2>" in text
    assert "sentences (n = 4 runs)" in text  # the figure notes explain their counts
    assert f"tarsim report {report.parent / 'out'} --html {report}" in text


def test_the_cli_refuses_an_unknown_stopping_rule_before_writing(tmp_path, capsys):
    assert main(["report", str(tmp_path), "--html", str(tmp_path / "r.html"), "--stopping", "never:x"]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "r.html").exists()


def ink(pixels, rect) -> float:
    """The share of a figure's area that is not background (white)."""
    top, left = int(rect["top"]), int(rect["left"])
    area = pixels[top : top + int(rect["height"]), left : left + int(rect["width"]), :3]
    return float((area.min(axis=2) < 0.9).mean())


def test_the_page_renders_in_headless_chromium(report, tmp_path):
    import matplotlib.image

    reference = json.loads(REFERENCE.read_text())
    with Page(chromium_or_skip(), width=reference["width"]) as page:
        page.open(report, READY)
        assert page.evaluate("document.body.dataset.rendered") == str(len(reference["figures"]))
        figures = page.evaluate(
            """Array.from(document.querySelectorAll('.figure')).map(f => ({id: f.id, want: JSON.parse(f.dataset.marks),
              line: f.querySelectorAll('g.mark-line.role-mark path').length,
              symbol: f.querySelectorAll('g.mark-symbol.role-mark path').length,
              area: f.querySelectorAll('g.mark-area.role-mark path').length,
              rect: f.querySelector('svg').getBoundingClientRect().toJSON()}))"""
        )
        assert [f["id"] for f in figures] == list(reference["figures"])
        for figure in figures:
            for kind, count in figure["want"].items():
                assert figure[kind] == count, (figure["id"], kind)
        # hovering a stop shows its run in Vega's tooltip
        point = page.evaluate(
            "(() => { const r = document.querySelector('#stopping g.mark-symbol.role-mark path')"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2 + window.scrollY]; })()"
        )
        page.evaluate(f"window.scrollTo(0, {point[1] - 200})")
        y = page.evaluate(f"{point[1]} - window.scrollY")
        page.call("Input.dispatchMouseEvent", type="mouseMoved", x=point[0], y=y)
        tooltip = page.evaluate("(document.querySelector('#vg-tooltip-element') || {}).textContent || ''")
        assert "nonrel:2" in tooltip and "seed" in tooltip
        page.evaluate("window.scrollTo(0, 0)")
        png = page.screenshot()
        assert page.errors == [] and page.evaluate("window.tarsimErrors") == []
    (tmp_path / "report.png").write_bytes(png)
    pixels = matplotlib.image.imread(io.BytesIO(png))
    assert pixels.shape[1] == reference["width"] and pixels.shape[0] >= reference["min_height"]
    for figure in figures:
        expected = reference["figures"][figure["id"]]
        rect = figure["rect"]
        assert expected["width"][0] <= rect["width"] <= expected["width"][1], figure["id"]
        assert expected["height"][0] <= rect["height"] <= expected["height"][1], figure["id"]
        assert ink(pixels, rect) >= expected["min_ink"], (figure["id"], ink(pixels, rect))


def test_a_sweeps_stopping_rules_are_found_and_one_needing_the_collection_is_left_out_with_a_note(tmp_path, capsys):
    folder = tmp_path / "out" / "ledgers"
    folder.mkdir(parents=True)
    for i, lines in enumerate(study(sweep="demo", build=make_lines)):
        (folder / f"{i}.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "out" / "stopping").mkdir()
    (tmp_path / "out" / "stopping" / "stop_summary.csv").write_text("rule,rule_given\nnonrel:2,nonrel:2\nt,target:10\n")
    page = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "out"), "--html", str(page)]) == 0
    text = page.read_text()
    assert '"stopping"' in text and "Stopping rule target:10 left out: " in text
    capsys.readouterr()
    asked = ["report", str(tmp_path / "out"), "--html", str(tmp_path / "again.html"), "--stopping", "target:10"]
    assert main(asked) == 2  # asked for by name: refused in one line, nothing written
    assert "target:10" in capsys.readouterr().err and not (tmp_path / "again.html").exists()


def test_identical_mean_lines_are_dashed_and_said_so(tmp_path):
    from test_figures_read import make

    from tarsim.reporting.html_report import build_report

    truth = [1, 1, 0, 1]
    ledgers = [make(truth, policy=p, seed=s) for p in ("tarsim", "asreview") for s in (0, 1)]
    _page, figures = build_report(ledgers)
    (recall,) = [figure for figure in figures if figure.id == "recall-judge"]
    assert "is identical to" in recall.note
    rows = [row for data in recall.spec["datasets"].values() for row in data if "dashed" in row]
    dashed = {row["group"] for row in rows if row["dashed"]}
    assert len(dashed) == 1 and dashed < {"tarsim (n = 2 runs)", "asreview (n = 2 runs)"}  # the later one only
