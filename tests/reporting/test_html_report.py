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


WIDE = {f"features.a_setting_with_a_long_name_{k}": "x" * 40 for k in range(8)}
"""Settings that differ between the groups, with long values: a wide table (it ran off the page's right edge)."""


def wide_settings(lines: list[str]) -> list[str]:
    """The ledger with WIDE's settings, each value prefixed by its policy (so that they differ between groups)."""
    header = json.loads(lines[0])
    policy = header["config"]["policy"]
    header["config"].update({key: f"{policy}-{value}" for key, value in WIDE.items()})
    return [json.dumps(header), *lines[1:]]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A study of 2 strategies x 2 topics x 2 seeds as ledgers with wide differing settings, and its page: two
    stopping rules (one never fires), effort in judgments, sentences and lambda:0.5 (an id with `:` and `.`)."""
    tmp = tmp_path_factory.mktemp("report")
    folder = tmp / "out" / "ledgers"
    folder.mkdir(parents=True)
    for i, lines in enumerate(study(sweep="demo", build=make_lines)):
        (folder / f"{i}.jsonl").write_text("\n".join(wide_settings(lines)) + "\n")
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
                "--stopping",
                "nonrel:50",
                "--effort",
                "judge",
                "--effort",
                "sent",
                "--effort",
                "lambda:0.5",
                "--group-by",
                "policy",
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
    assert 'id="recall-lambda-0-5"' in text  # an id that is a CSS selector too (was recall-lambda-0.5)
    assert "Stopping rules replayed on every run: nonrel:2, nonrel:50" in text  # the stopping figure's caption
    assert "Not drawn, as they stopped no run: nonrel:50." in text
    assert "Recall@2R+100 per topic (mean ± sd over each group&#x27;s runs of the topic: its seeds)" in text
    assert f"tarsim report {report.parent / 'out'} --html {report}" in text
    # legends show a group's label whole (Vega-Lite cut them at 160 px: groups differing at the end looked the same)
    assert text.count('"legend": {"labelLimit": 420}') >= 3


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
        # wide tables scroll inside the page and commands wrap: nothing runs off its right edge
        assert page.evaluate("document.documentElement.scrollWidth") <= reference["width"]
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


def test_figure_ids_are_css_selectors_and_unique():
    import dataclasses

    from tarsim.reporting.html_charts import Figure, element_id
    from tarsim.reporting.html_report import unique_ids

    for text in ("recall-lambda:0.5", "recall-judge", "9 lives", "a.b#c d"):
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", element_id(text)), text
    assert element_id("recall-lambda:0.5") != element_id("recall-lambda:5")
    figure = Figure("recall-x", "", {}, {})
    ids = [f.id for f in unique_ids([figure, dataclasses.replace(figure), dataclasses.replace(figure, id="b")])]
    assert len(set(ids)) == 3 and ids[0] == "recall-x"


def test_runs_of_several_collections_get_a_table_per_collection():
    from test_figures_read import make_lines as lines_of

    from tarsim.data.ledger import ledger_from_lines
    from tarsim.reporting.html_report import collections_section

    ledgers = [
        ledger_from_lines(lines_of([1, 0, 1, 1][: 3 + seed], topic=name, policy=policy, seed=seed, sweep=name))
        for name in ("Cohen", "Triptans")
        for policy in ("p", "q")
        for seed in (0, 1)
    ]
    section = collections_section(ledgers, None, "judge", "presented")
    assert "<h3>Per collection</h3>" in section
    rows = re.findall(r"<tr><td>(\w+)</td><td>(\w+)</td><td>(\d+)</td>", section)
    assert rows == [("Cohen", "p", "2"), ("Cohen", "q", "2"), ("Triptans", "p", "2"), ("Triptans", "q", "2")]
    assert collections_section(ledgers[:4], None, "judge", "presented") == ""  # one collection: no such table
