"""Messages that name the real cause (issue 30): long or non-ASCII topic ids get safe ledger names (they failed with
ENAMETOOLONG after other topics were reviewed, naming a hidden .partial file), a symlink loop as --out is called one
(not "File exists"), `--sentence-oracle /dev/null` is called a device (not "no such file"), `--preset ''` is refused
(it meant the default preset, without a word)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from tarsim.cli import main
from tarsim.simulator.run import ledger_name

LONGEST_NAME = 200  # tarsim.simulator.run.LONGEST_NAME

LONG_ASCII = "q" * 300
LONG_CJK = "中文主题" * 25  # 100 characters, 700 bytes once %-escaped


@pytest.mark.parametrize(
    "topic",
    [LONG_ASCII, LONG_CJK, LONG_ASCII[:-1] + "r", "x" * (LONGEST_NAME + 1), "." + "é" * 80],
    ids=["300 ASCII", "100 CJK", "300 ASCII, another", "201 bytes", "a dot and 80 é"],
)
def test_a_long_topic_id_gets_a_short_distinct_name(topic):
    name = ledger_name(topic)
    assert len(name.encode()) <= LONGEST_NAME + len(".jsonl") and name.endswith(".jsonl")
    assert "~" in name and not name.startswith(".")
    assert name[: -len(".jsonl")].rsplit("~", 1)[1] != ""


def test_names_of_long_ids_differ_and_short_names_are_unchanged():
    longs = [LONG_ASCII, LONG_ASCII[:-1] + "r", LONG_CJK, LONG_CJK[:-1] + "文"]
    assert len({ledger_name(topic) for topic in longs}) == len(longs)
    assert ledger_name("T1") == "T1.jsonl"
    assert ledger_name(".hidden") == "%2Ehidden.jsonl"
    assert ledger_name("x" * LONGEST_NAME) == "x" * LONGEST_NAME + ".jsonl"  # the longest name kept whole
    assert "~" not in ledger_name("~")  # `~` is escaped in ids: a cut name collides with none


def test_long_and_cjk_topic_ids_are_reviewed_and_reported(demo, demo_features, tmp_path, capsys):
    from tarsim.simulator import ReviewConfig
    from tarsim.simulator.run import review_topics

    renamed = {"T1": "T1", "T2": LONG_ASCII, "T3": LONG_CJK}
    dataset = replace(
        demo,
        qrels={new: demo.qrels[old] for old, new in renamed.items()},
        topics={new: demo.topics[old] for old, new in renamed.items()},
    )
    out = tmp_path / "out"
    batch = review_topics(dataset, ReviewConfig(max_effort="10"), None, out, features=demo_features)
    assert sorted(batch.ledgers) == sorted(renamed.values())
    names = sorted(p.name for p in (out / "ledgers").iterdir())
    assert names == sorted(ledger_name(topic) for topic in renamed.values()) and "T1.jsonl" in names
    topics = {json.loads((out / "ledgers" / name).read_text().splitlines()[0])["topic"] for name in names}
    assert topics == set(renamed.values())
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "over 3 topic" in capsys.readouterr().out


# ---- options -------------------------------------------------------------------------------------------------
SIMULATE = ["simulate", "--topic", "T1", "--max-effort", "5"]


def refused(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tarsim: error: ")
    return err.removeprefix("tarsim: error: ").strip()


@pytest.mark.parametrize("inside", [False, True], ids=["the folder", "its parent"])
def test_a_symlink_loop_as_out_is_named_as_such(tmp_path, capsys, inside):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    out = loop / "sub" if inside else loop
    err = refused(capsys, [*SIMULATE, "--out", str(out)])
    assert err == f"--out {out}: {loop} is a symlink loop (it leads back to itself)"


def test_a_dangling_symlink_as_out_names_its_target(tmp_path, capsys):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone")
    err = refused(capsys, [*SIMULATE, "--out", str(link)])
    assert err == f"--out {link}: {link} is a symlink to {tmp_path / 'gone'}, which does not exist"


@pytest.mark.parametrize(
    ("value", "what"),
    [("/dev/null", "a character device"), ("FOLDER", "a directory"), ("FIFO", "a named pipe (FIFO)")],
)
def test_a_sentence_oracle_that_is_no_regular_file_is_named_so(tmp_path, capsys, value, what):
    if value == "FOLDER":
        value = str(tmp_path)
    elif value == "FIFO":
        value = str(tmp_path / "fifo")
        os.mkfifo(value)
    err = refused(capsys, [*SIMULATE, "--sentence-oracle", value, "--out", str(tmp_path / "o")])
    assert err == f"--sentence-oracle {value}: {what}, not a regular file; give a sentence qrels file"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_preset_is_refused(tmp_path, capsys, value):
    err = refused(capsys, [*SIMULATE, "--preset", value, "--out", str(tmp_path / "o")])
    assert err.startswith("--preset is empty; accepted: bmi, asreview-default")
    assert not (tmp_path / "o").exists()
