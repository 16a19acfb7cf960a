"""Pieces that join the registry, online stopping and screening files: `tarsim simulate --stop`, and screening files
as sweep collections (a file path, and a glob over a folder of them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.sweep import expand_plan, parse_sweep_config
from tarsim.sweep.plan import load_collections


def test_simulate_stop_ends_the_review_where_the_rule_fires(tmp_path):
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T3", "--stop", "budget:0.5R", "--out", str(out)]) == 0
    lines = (out / "ledgers" / "T3.jsonl").read_text().splitlines()
    header, end = json.loads(lines[0]), json.loads(lines[-1])
    judgments = [json.loads(line) for line in lines if '"type":"judgment"' in line]
    assert header["config"]["stopping"] == ["budget:0.5R"]
    assert end["stop"]["rule"] == "budget:0.5R" and end["reason"] == "stopping rule budget:0.5R fired"
    assert len(judgments) == header["relevant"] // 2  # judge effort: one unit a judgment, 0.5 R of them


def test_simulate_refuses_an_unknown_stopping_rule_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["simulate", "--stop", "kneee", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "stopping rule 'kneee' unknown" in err and "did you mean knee" in err and err.count("\n") == 1
    assert not out.exists()


def _screening_csv(path: Path, labels: list[int]) -> None:
    rows = ["title,abstract,label_included"]
    rows += [f"record {i} title,abstract {i} words here,{label}" for i, label in enumerate(labels)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_sweep_takes_screening_files_by_path_and_by_glob(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    _screening_csv(tmp_path / "first.csv", [1, 0, 0, 1, 0, 0])
    _screening_csv(folder / "third.csv", [0, 0, 1, 0])
    _screening_csv(folder / "second.csv", [0, 1, 0, 0, 0, 1, 0])
    (folder / "notes.txt").write_text("not a collection\n", encoding="utf-8")  # a glob skips .txt files
    text = """\
[sweep]
seeds = 1

[[collections]]
path = "first.csv"

[[collections]]
path = "files/*"

[review]
seeding = "random"
"""
    config = parse_sweep_config(text, tmp_path / "sweep.toml")
    collections = load_collections(config)
    runs, skipped = expand_plan(config, collections)
    assert not skipped
    assert sorted({(r.collection, r.topic) for r in runs}) == [
        ("first", "first"),
        ("second", "second"),
        ("third", "third"),
    ]


def test_a_sweep_leaves_out_a_screening_file_s_unlabelled_records_when_asked(tmp_path, capsys):
    lines = ["title,abstract,label_included"]
    lines += [
        f"trial {i} {'migraine triptan' if i % 4 == 0 else 'knee diet'},abstract {i},{i % 4 == 0:d}" for i in range(24)
    ]
    lines[3 + 1] = "trial 3 knee diet,abstract 3,"  # record 3 has no label
    (tmp_path / "f.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    toml = tmp_path / "sweep.toml"
    body = (
        '[sweep]\nseeds = 1\n\n[[collections]]\npath = "f.csv"\n{}\n[review]\nprior_idx = [8, 2]\nmax_effort = "10"\n'
    )
    toml.write_text(body.format(""))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "a")]) == 2
    assert 'unlabelled = "skip" in its [[collections]]' in capsys.readouterr().err  # the sweep's own way out
    toml.write_text(body.format('unlabelled = "skip"'))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "b")]) == 0
    (ledger,) = (tmp_path / "b" / "ledgers").rglob("*.jsonl")
    judged = [json.loads(line)["docid"] for line in ledger.read_text().splitlines()[1:3]]
    assert judged == ["8", "2"]  # prior_idx counts the file's rows, as tarsim simulate
    toml.write_text(body.format('unlabelled = "skip"').replace("prior_idx = [8, 2]", 'seeding = "query"'))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "q")]) == 2  # as tarsim simulate --seeding query
    assert "has no query text (a screening file)" in capsys.readouterr().err
    toml.write_text(body.format('unlabelled = "maybe"'))
    assert main(["sweep", str(toml), "--out", str(tmp_path / "c")]) == 2
    assert "unlabelled: expected one of 'error', 'skip', got 'maybe'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--out", ""],
        ["sweep", "SWEEP", "--out", ""],
        ["compare", "OUT", "--baseline", "x", "--out", ""],
        ["metrics", "OUT", "--out", " "],
    ],
)
def test_an_empty_out_is_refused_in_one_line(tmp_path, capsys, argv):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[sweep]\nseeds = 1\n\n[[collections]]\npath = "demo"\n', encoding="utf-8")
    collection = tmp_path / "c"
    collection.mkdir()
    argv = [{"SWEEP": str(sweep), "OUT": str(tmp_path), "COLLECTION": str(collection)}.get(a, a) for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out is empty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_per_topic_recall_beyond_a_budget_is_unknown():
    """The per-topic table's Recall@2R+100 is n/a where a review stopped by --max-effort spent less (as the grid)."""
    import tarsim
    from tarsim.reporting.tables import topic_table_rows

    short = tarsim.simulate(topic="T3", max_effort="50")
    row = topic_table_rows(short.ledgers.values())[0]
    assert row["judged"] == 50 and row["recall_2R+100"] is None
    full = tarsim.simulate(topic="T3", max_effort="2R+100")
    assert topic_table_rows(full.ledgers.values())[0]["recall_2R+100"] is not None
