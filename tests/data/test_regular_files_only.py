"""Only regular files are read (issue 30): a ledger or a feature-cache entry that is a FIFO, or a symlink to
/dev/zero, is refused or passed over in one line, never read (a FIFO blocked the reader forever, /dev/zero was read
until the machine ran out of memory); and `tarsim cache clear` removes only the files tarsim wrote."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import ledger_factory
import tarsim
from fifo_guard import finishes
from tarsim.cli import main
from tarsim.data.ledger import read_ledger
from tarsim.errors import InputError

SRC = str(Path(tarsim.__file__).resolve().parents[1])  # the tarsim under test
SECONDS = 60


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def out_with_fifo(tmp_path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    write_lines(out / "ledgers" / "T1.jsonl", ledger_factory.ledger_lines([1, 0, 1], topic="T1"))
    fifo = out / "ledgers" / "T2.jsonl"
    os.mkfifo(fifo)
    return out, fifo


def test_a_ledger_that_is_a_fifo_is_refused_not_read(out_with_fifo):
    _, fifo = out_with_fifo
    with pytest.raises(InputError, match=r"T2\.jsonl: a named pipe \(FIFO\), not a regular file"):
        finishes(lambda: read_ledger(fifo), [fifo])


@pytest.mark.parametrize("command", ["report", "resume"])
def test_every_command_refuses_a_fifo_in_the_ledgers_folder_in_one_line(out_with_fifo, capsys, command):
    out, fifo = out_with_fifo
    if command == "resume":  # only the FIFO: the hand-built ledger beside it is of another configuration
        (out / "ledgers" / "T1.jsonl").unlink()
    argv = {
        "report": ["report", str(out)],
        "resume": ["simulate", "--topic", "T1", "--max-effort", "10", "--out", str(out), "--resume"],
    }[command]
    capsys.readouterr()
    assert finishes(lambda: main(argv), [fifo]) == 2
    err = capsys.readouterr().err
    assert err == f"tarsim: error: {fifo}: a named pipe (FIFO), not a regular file\n"


@pytest.mark.parametrize("command", ["stop", "compare", "metrics"])
def test_readers_that_search_folders_never_block_on_a_fifo(out_with_fifo, command):
    out, fifo = out_with_fifo
    argv = {
        "stop": ["stop", str(out), "--rule", "knee"],
        "compare": ["compare", str(out), "--baseline", "relevance"],
        "metrics": ["metrics", str(out / "ledgers")],
    }[command]
    assert finishes(lambda: main(argv), [fifo]) == 2  # refused by their search, never opened (see
    # tests/data/test_non_regular_review_files.py for the messages)


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_a_ledger_symlinked_to_dev_zero_is_refused_without_reading_it(tmp_path):
    out = tmp_path / "out"
    write_lines(out / "ledgers" / "T1.jsonl", ledger_factory.ledger_lines([1, 0, 1], topic="T1"))
    zero = out / "ledgers" / "T2.jsonl"
    zero.symlink_to("/dev/zero")
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(  # capped: the old reader read /dev/zero until the machine's memory ran out
        [sys.executable, "-m", "tarsim", "report", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=SECONDS,
        preexec_fn=_limit_memory,
    )
    assert done.returncode == 2
    assert done.stderr == f"tarsim: error: {zero}: a symlink to /dev/zero, a character device, not a regular file\n"


# ---- the feature cache ----------------------------------------------------------------------------------------
def _entries(cache: Path, demo) -> list[Path]:
    from tarsim.features.cache import cache_path
    from tarsim.features.matrices import FeatureSettings

    settings = FeatureSettings()
    return [cache_path(cache, demo.collection, settings, only) for only in (False, True)]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_cache_entry_that_is_no_regular_file_is_passed_over_with_a_warning(tmp_path, demo, kind):
    from tarsim.features.cache import cached_features
    from tarsim.features.matrices import FeatureSettings

    cache = tmp_path / "cache"
    cache.mkdir()
    entries = _entries(cache, demo)
    for entry in entries:
        if kind == "fifo":
            os.mkfifo(entry)
        else:
            entry.symlink_to("/dev/zero")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        features = finishes(
            lambda: cached_features(demo.collection, cache, FeatureSettings(), sentences=False), entries
        )
    assert features.n_documents == len(demo.collection)
    said = [str(w.message) for w in caught if "not a regular file" in str(w.message)]
    assert len(said) == 2 and all(str(entry) in " ".join(said) for entry in entries)
    assert entries[1].is_file() and not entries[1].is_symlink()  # replaced by the entry just built


def test_cache_info_does_not_block_on_a_fifo_entry(tmp_path, demo, capsys):
    cache = tmp_path / "cache"
    cache.mkdir()
    entry = _entries(cache, demo)[0]
    os.mkfifo(entry)
    assert finishes(lambda: main(["cache", "info", "--cache-dir", str(cache)]), [entry]) == 0


def test_cache_clear_removes_only_what_tarsim_wrote_and_names_the_rest(tmp_path, demo, capsys):
    from tarsim.features.cache import cached_features
    from tarsim.features.matrices import FeatureSettings

    cache = tmp_path / "cache"
    cached_features(demo.collection, cache, FeatureSettings(), sentences=True)
    (entry,) = cache.glob("features-*.npz")
    foreign = {
        "features-mine.npz": b"a user's own arrays",  # the prefix, not tarsim's name
        entry.name.replace("features-", "tfidf-"): b"PK\x03\x04 not tarsim's",  # tarsim's name, other content
        "docids-0123456789abcdef01234567-v1.json": b'["a user list"]',
        "notes.txt": b"notes",
    }
    for name, content in foreign.items():
        (cache / name).write_bytes(content)
    elsewhere = tmp_path / "elsewhere.npz"
    elsewhere.write_bytes(entry.read_bytes())
    linked = cache / entry.name.replace("-v", "-docs-v")
    linked.symlink_to(elsewhere)  # tarsim writes no symlink
    fifo = cache / entry.name.replace("features-", "sentences-")
    os.mkfifo(fifo)
    capsys.readouterr()
    assert finishes(lambda: main(["cache", "clear", "--cache-dir", str(cache)]), [fifo]) == 0
    out = capsys.readouterr().out
    left = sorted(p.name for p in cache.iterdir())
    assert left == sorted([*foreign, linked.name, fifo.name])  # only tarsim's own entry went
    assert elsewhere.exists()
    assert "removed 1 file(s)" in out and f"left {len(left)} file(s) tarsim did not write: " in out
    assert all(name in out for name in left)
    assert "a named pipe (FIFO)" in out and f"a symlink to {elsewhere}" in out


def test_a_sentence_store_that_is_a_fifo_is_passed_over(tmp_path, demo):
    from tarsim.data.digests import collection_digest
    from tarsim.features.cache import cached_features, sentence_store_path
    from tarsim.features.matrices import FeatureSettings

    cache = tmp_path / "cache"
    cache.mkdir()
    settings = FeatureSettings()
    store = sentence_store_path(cache, collection_digest(demo.collection), settings.digest())
    os.mkfifo(store)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        features = finishes(lambda: cached_features(demo.collection, cache, settings, sentences=False), [store])
        finishes(lambda: features.sentence_words_of(0), [store])
        finishes(features.lazy.save, [store])
    assert any(str(store) in str(w.message) and "not a regular file" in str(w.message) for w in caught)
    assert store.is_file()  # the store this run segmented, written in its place
