"""No silent no-ops (issue 31): a flag either acts or is refused for that input in one line, and every review file in
a folder given to `metrics`, `compare`, `plot` or `stop` contributes (ledgers, .asreview projects, order files)."""

from __future__ import annotations

import json
import shutil

import ledger_factory
from asreview_fixtures import write_project
from tarsim.cli import main


def _study_folder(tmp_path):
    """A folder holding a tarsim ledger, an ASReview project and an order file (and a qrels.txt, which is none)."""
    folder = tmp_path / "study"
    (folder / "tarsim").mkdir(parents=True)
    (folder / "tarsim" / "t.jsonl").write_text("\n".join(ledger_factory.ledger_lines([1, 0, 1, 0], size=4)) + "\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    records = [(0, 1), (1, 0), (2, 1), (3, 0)]
    results = [(0, 1, None), (1, 0, None), (2, 1, "max"), (3, 0, "max")]
    project = write_project(scratch / "t.asreview", records, results, "review", model={"classifier": "nb"})
    shutil.copy(project, folder / "t.asreview")
    (folder / "t.other-tool.txt").write_text("# an order file\nd0 1 prior\nd1 0 prior\nd2 1\nd3 0\n")
    (folder / "qrels.txt").write_text("t 0 d0 1\nt 0 d2 1\n")
    return folder


def test_asreview_projects_and_order_files_in_a_folder_contribute_to_metrics(tmp_path, capsys):
    """Failed before: the folder's .asreview project and order file were dropped without a word (1 review)."""
    assert main(["metrics", str(_study_folder(tmp_path)), "--format", "json"]) == 0
    tools = sorted(review["tool"] for review in json.loads(capsys.readouterr().out)["reviews"])
    assert len(tools) == 3
    assert tools[0].startswith("asreview") and tools[1] == "other-tool" and tools[2].startswith("tarsim")


def test_asreview_projects_in_a_folder_contribute_to_compare(tmp_path, capsys):
    folder = _study_folder(tmp_path)
    assert main(["compare", str(folder), "--baseline", "other-tool", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["groups"]) == 3
