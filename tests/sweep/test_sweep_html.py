"""`tarsim sweep CONFIG --html FILE`: the study's one-page report written after the sweep, as `tarsim report OUT
--html FILE` writes it; an --html that cannot be written is refused before any run."""

from __future__ import annotations

from pathlib import Path

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


SCREENING = CONFIG.replace('effort_models = ["judge"]\n', "").replace('vary.learner = ["logistic", "nb"]\n', "")
"""A title/abstract screening sweep (document/document) with the default effort models (judge, sent, lambda, ...)."""


def test_a_page_inside_the_sweeps_output_folder_is_accepted_before_any_run(tmp_path, capsys):
    """`--out out --html out/report.html` was refused ("folder out does not exist") though the sweep creates out."""
    config = tmp_path / "study.toml"
    config.write_text(SCREENING, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--out", str(out), "--html", str(out / "report.html"), "--dry-run"]) == 0
    assert main(["sweep", str(config), "--out", str(out), "--html", str(out / "pages" / "r.html"), "--dry-run"]) == 0
    assert not out.exists()  # checked, nothing made
    assert "a dry run writes no page" in capsys.readouterr().err  # said, not left to be found missing


def test_a_screening_sweeps_page_is_the_one_tarsim_report_writes(tmp_path, monkeypatch, capsys):
    """A document-screening sweep drew sentence, lambda and seconds figures that `tarsim report OUT --html` does not:
    its page now gets the report's default (judgments), and a folder below OUT is made for it."""
    import tarsim.reporting.html_study as html_study
    from tarsim.cli.sweep import _write_report
    from tarsim.sweep.config import load_sweep_config

    config = tmp_path / "study.toml"
    config.write_text(SCREENING, encoding="utf-8")
    asked = {}

    def fake(out, html, effort=(), collections=()):
        asked.update(out=out, html=html, effort=tuple(effort))
        return html_study.WrittenPage(Path(html), 1, 3)

    monkeypatch.setattr(html_study, "write_study_page", fake)
    page = tmp_path / "out" / "pages" / "r.html"
    assert _write_report(load_sweep_config(config), tmp_path / "out", str(page)) == 0
    assert asked["effort"] == () and page.parent.is_dir()  # () : as `tarsim report OUT --html FILE` (judge)
    said = capsys.readouterr().out.splitlines()[-1]  # the models left out are named, with the command that draws them
    assert said.startswith("the page draws judgments only (no strategy shows sentences); for sent")
    assert said.endswith(f"--html {page} --effort judge --effort sent --effort lambda:0.5 --effort seconds")


def test_a_sentence_sweep_page_draws_the_sweeps_effort_models():
    from tarsim.sweep.config import SweepConfig

    screening = SweepConfig(source=Path("s.toml"), collections=(), effort_models=("judge", "sent", "lambda:0.5"))
    assert screening.report_effort_models() == ("judge",)
    sentences = SweepConfig(
        source=Path("s.toml"),
        collections=(),
        strategies=("document/document", "sentence/document"),
        effort_models=("judge", "sent", "lambda:0.5"),
    )
    assert sentences.report_effort_models() == ("judge", "sent", "lambda:0.5")


@pytest.mark.parametrize("html", ["out", "out/ledgers", "out/results.csv"])
def test_an_html_that_is_the_output_folder_or_one_of_its_outputs_is_refused_before_any_run(tmp_path, capsys, html):
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    assert main(["sweep", str(config), "--out", str(tmp_path / "out"), "--html", str(tmp_path / html)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tarsim: error: --html ") and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_dry_run_with_resume_counts_the_finished_ledgers(tmp_path, capsys):
    """`--resume --dry-run` said '2 run(s) planned' however many had finished."""
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--out", str(out)]) == 0
    next((out / "ledgers").glob("*.jsonl")).unlink()
    capsys.readouterr()
    assert main(["sweep", str(config), "--out", str(out), "--resume", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2  # the run ids, as without --resume
    assert captured.err.splitlines()[-1] == f"2 run(s) planned; 1 have a finished ledger in {out}, so about 1 would run"


def test_an_html_page_that_is_a_symlink_loop_is_one_line_not_a_traceback(tmp_path, capsys):
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    (tmp_path / "loop").symlink_to("loop")
    argv = ["sweep", str(config), "--out", str(tmp_path / "out"), "--html", str(tmp_path / "loop"), "--dry-run"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"tarsim: error: --html {tmp_path / 'loop'}: a symlink loop on its way (it leads back to itself)\n"
