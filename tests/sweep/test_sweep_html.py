"""`tarsim sweep CONFIG --html FILE`: the study's one-page report written after the sweep, as `tarsim report OUT
--html FILE` writes it; an --html that cannot be written is refused before any run."""

from __future__ import annotations

import pytest

from tarsim.cli import main

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

CONFIG = """\
[sweep]
seeds = 1
vary.learner = ["logistic", "nb"]
effort_models = ["judge"]

[[collections]]
path = "demo"
topics = ["T1"]

[review]
max_effort = "2R+20"
"""


def test_a_sweep_writes_its_html_report_after_the_runs(tmp_path, capsys):
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    page = tmp_path / "study.html"
    assert main(["sweep", str(config), "--out", str(tmp_path / "out"), "--html", str(page)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"2 run(s), {_figures(page)} figure(s) written to {page}"
    text = page.read_text(encoding="utf-8")
    assert "learner=logistic" in text and "learner=nb" in text  # both groups of the varied setting
    assert "vary.learner = [&quot;logistic&quot;, &quot;nb&quot;]" in text  # the sweep file that reproduces it


def _figures(page) -> int:
    return page.read_text(encoding="utf-8").count('"id": "')


def test_an_html_path_that_cannot_be_written_is_refused_before_any_run(tmp_path, capsys):
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    (tmp_path / "taken").mkdir()
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--out", str(out), "--html", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tarsim: error: ") and len(err.splitlines()) == 1 and "taken" in err
    assert not out.exists()
