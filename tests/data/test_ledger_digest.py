"""Ledgers verified whole (issue 30): the end record carries the SHA-256 of the body (every line between header and
end), and every reader - `simulate --resume`, `report`, `stop`, `metrics`, `compare` - refuses a ledger whose body was
edited, in one line naming the file; older ledgers without the digest are still read; `--resume` also checks each
judgment's truth grade against the qrels."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.data.ledger import ledger_from_lines, read_ledger
from tarsim.errors import InputError

BODY_DIGEST = "body_sha256"  # the end record's field (tarsim.data.ledger.BODY_DIGEST)
SIMULATE = ["simulate", "--topic", "T1", "--max-effort", "40"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """An output folder of one finished demo review (T1, 40 judgments)."""
    out = tmp_path_factory.mktemp("digest") / "out"
    assert main([*SIMULATE, "--out", str(out)]) == 0
    return out


@pytest.fixture
def out(finished, tmp_path) -> Path:
    """A private copy of the finished output folder, for a test to edit."""
    copy = tmp_path / "out"
    shutil.copytree(finished, copy)
    return copy


def ledger_file(out: Path) -> Path:
    return out / "ledgers" / "T1.jsonl"


def edit_lines(path: Path, edit) -> None:
    """Rewrite a ledger with `edit(lines)` applied to its lines (without newlines)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    edit(lines)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def first_judgment(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "judgment")


def flip_label(lines: list[str]) -> None:
    """Flip the first judgment's label (a value readers accept: only the digest can tell)."""
    i = first_judgment(lines)
    record = json.loads(lines[i])
    record["label"] = 1 - record["label"]
    lines[i] = json.dumps(record, sort_keys=True, separators=(",", ":"))


def body_digest(lines: list[str]) -> str:
    return hashlib.sha256("".join(line + "\n" for line in lines[1:-1]).encode()).hexdigest()


def test_the_end_record_carries_the_sha256_of_the_exact_body_bytes(finished):
    raw = ledger_file(finished).read_bytes().splitlines(keepends=True)
    end = json.loads(raw[-1])
    assert end[BODY_DIGEST] == hashlib.sha256(b"".join(raw[1:-1])).hexdigest()
    assert end["judgments"] == 40


def test_same_seed_same_bytes_with_the_digest(finished, tmp_path):
    again = tmp_path / "again"
    assert main([*SIMULATE, "--out", str(again)]) == 0
    assert ledger_file(again).read_bytes() == ledger_file(finished).read_bytes()


def test_a_ledger_kept_in_memory_carries_the_same_digest(demo, demo_features, tmp_path):
    from tarsim.simulator import ReviewConfig
    from tarsim.simulator.run import review_topics

    config = ReviewConfig(max_effort="30")
    in_memory = review_topics(demo, config, ["T1"], features=demo_features).ledgers["T1"]
    on_disk = review_topics(demo, config, ["T1"], tmp_path / "o", features=demo_features).ledgers["T1"]
    assert in_memory.end[BODY_DIGEST] == on_disk.end[BODY_DIGEST]


READERS = {
    "resume": lambda out, path: [*SIMULATE, "--out", str(out), "--resume"],
    "report": lambda out, path: ["report", str(out)],
    "stop": lambda out, path: ["stop", str(out), "--rule", "knee"],
    "metrics": lambda out, path: ["metrics", str(path)],
    "compare": lambda out, path: ["compare", str(out), "--baseline", "relevance"],
}


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_refuses_an_edited_judgment_in_one_line(out, capsys, reader):
    path = ledger_file(out)
    edit_lines(path, flip_label)
    before = path.read_bytes()
    capsys.readouterr()
    assert main(READERS[reader](out, path)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: {path}:") and BODY_DIGEST in err and err.count("\n") == 1
    assert path.read_bytes() == before  # resume neither kept nor replaced it


def test_an_edited_round_record_is_refused_too(out):
    def edit(lines: list[str]) -> None:
        i = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "round")
        record = json.loads(lines[i])
        record["batch_size"] += 1
        lines[i] = json.dumps(record, sort_keys=True, separators=(",", ":"))

    edit_lines(ledger_file(out), edit)
    with pytest.raises(InputError, match=BODY_DIGEST):
        read_ledger(ledger_file(out))


def test_a_digest_that_is_not_64_hex_digits_is_refused(out):
    def edit(lines: list[str]) -> None:
        end = json.loads(lines[-1])
        end[BODY_DIGEST] = 12
        lines[-1] = json.dumps(end)

    edit_lines(ledger_file(out), edit)
    with pytest.raises(InputError, match="it must be 64 hex digits"):
        read_ledger(ledger_file(out))


def without_digest(lines: list[str]) -> None:
    end = json.loads(lines[-1])
    del end[BODY_DIGEST]
    lines[-1] = json.dumps(end, sort_keys=True, separators=(",", ":"))


def test_a_ledger_written_before_the_digest_is_still_read(out, capsys):
    edit_lines(ledger_file(out), without_digest)
    assert main(["report", str(out)]) == 0
    assert main([*SIMULATE, "--out", str(out), "--resume"]) == 0  # kept, not reviewed again
    assert BODY_DIGEST not in json.loads(ledger_file(out).read_text().splitlines()[-1])


def test_more_specific_faults_are_named_before_the_digest():
    import ledger_factory

    lines = ledger_factory.ledger_lines([1, 0, 1])
    end = json.loads(lines[-1])
    end[BODY_DIGEST] = body_digest(lines)
    lines[-1] = json.dumps(end)
    assert len(ledger_from_lines(lines)) == 3  # a hand-built ledger with a good digest reads
    record = json.loads(lines[2])
    record["label"] = 5
    lines[2] = json.dumps(record)
    with pytest.raises(InputError, match="judgment label is 5"):
        ledger_from_lines(lines)


def set_truth(lines: list[str], rehash: bool) -> int:
    """Make the first relevant judgment's truth 0, against the qrels (its label too, so it stays consistent); with
    `rehash`, recompute the digest as a hand edit could. Returns the judgment's line number."""
    i = next(i for i, line in enumerate(lines) if '"type":"judgment"' in line and json.loads(line)["truth"] > 0)
    record = json.loads(lines[i])
    record["truth"] = record["label"] = 0
    lines[i] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    end = json.loads(lines[-1])
    if rehash:
        end[BODY_DIGEST] = body_digest(lines)
    else:
        del end[BODY_DIGEST]
    lines[-1] = json.dumps(end, sort_keys=True, separators=(",", ":"))
    return i + 1


@pytest.mark.parametrize("rehash", [False, True], ids=["older ledger", "digest recomputed"])
def test_resume_checks_each_judgment_against_the_qrels(out, capsys, rehash):
    path = ledger_file(out)
    lines = path.read_text(encoding="utf-8").splitlines()
    number = set_truth(lines, rehash)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    read_ledger(path)  # a ledger readers accept: only the qrels can tell
    capsys.readouterr()
    assert main([*SIMULATE, "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: {path}:{number}: judgment of ") and "but the qrels give" in err
    assert err.count("\n") == 1


def test_an_edited_header_is_refused_by_every_reader(tmp_path, capsys):
    """Found by the probe rerun: raising the header's `relevant` changed every table and exited 0."""
    out = tmp_path / "out"
    assert main(["simulate", "--topic", "T1", "--max-effort", "R", "--out", str(out)]) == 0
    path = out / "ledgers" / "T1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["relevant"] += 5
    lines[0] = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()
    for command in (["report", str(out)], ["stop", str(out / "ledgers"), "--rule", "knee"], ["metrics", str(path)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "header_sha256" in err and err.count("\n") == 1, command
