"""Every reader fuzzed with hypothesis: random bytes, random JSON lines, random TSV/CSV rows and random TOML.

Library readers may only raise tarsim.errors.TarsimError (and warn with InputWarning); the CLI (`tarsim.cli.main`)
returns 0 or 2, never lets an exception out (a traceback), and leaves no hidden partial or temporary file in
its output folder. Examples are derandomised, so a run is repeatable and a failure found once is found again;
TARSIM_FUZZ_EXAMPLES=N runs N random (not derandomised) examples per test for a deeper search.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import math
import os
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarsim.cli import main
from tarsim.data import (
    read_collection,
    read_decisions,
    read_ledger,
    read_qrels,
    read_run,
    read_sentence_qrels,
    read_topics,
    write_collection,
    write_decisions,
    write_qrels,
    write_run,
    write_sentence_qrels,
    write_topics,
)
from tarsim.datasets.synthetic import SyntheticSpec, make_synthetic_dataset
from tarsim.errors import InputWarning, TarsimError
from tarsim.interop.asreview_csv import read_asreview_csv
from tarsim.sweep import load_sweep_config

DEEP = int(os.environ.get("TARSIM_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=DEEP or 40,
    deadline=None,
    derandomize=not DEEP,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FUZZ_CLI = settings(FUZZ, max_examples=DEEP or 20)  # through the CLI: a simulation or a report per example

# ---- strategies ----------------------------------------------------------------------------------------------

BYTES = st.binary(max_size=300)
# Field values that readers must tell apart: valid tokens, huge and negative integers, non-finite numbers, odd text.
FIELD = st.one_of(
    st.sampled_from(["T1", "d1", "d2", "0", "1", "2", "Q0", "tag", "-1", "1.5", "nan", "inf", "-inf", "1e400"]),
    st.sampled_from(["100000000000000000000", "9223372036854775808", "-9223372036854775809", "1_0", "\u0661", "+1"]),
    st.integers(-(10**25), 10**25).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=8),
)
SEPARATOR = st.sampled_from(["\t", " ", "  ", " \t"])
JSON_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=True), st.text(max_size=10)
)
JSON_VALUE = st.recursive(
    JSON_SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
)


def rows(columns: int) -> st.SearchStrategy[str]:
    """Whitespace-separated rows of about `columns` fields (one more or one fewer now and then)."""
    width = st.one_of(st.just(columns), st.integers(0, columns + 2))
    row = st.tuples(width.flatmap(lambda n: st.lists(FIELD, min_size=n, max_size=n)), SEPARATOR).map(
        lambda pair: pair[1].join(pair[0])
    )
    return st.lists(row, min_size=0, max_size=6).map(lambda lines: "\n".join(lines) + "\n")


def json_lines(keys: list[str]) -> st.SearchStrategy[str]:
    """JSON lines: mostly objects with the reader's own keys (random values), sometimes any JSON value."""
    record = st.dictionaries(st.sampled_from([*keys, "other"]), JSON_VALUE, max_size=len(keys) + 1)
    line = st.one_of(record.map(json.dumps), JSON_VALUE.map(json.dumps), st.text(max_size=10))
    return st.lists(line, min_size=0, max_size=5).map(lambda lines: "\n".join(lines) + "\n")


DOC_KEYS = ["docid", "text", "title", "sentences"]
LEDGER_KEYS = ["type", "format", "topic", "seed", "relevant", "collection_size", "config", "docid", "sentence"]
LEDGER_KEYS += ["seq", "label", "truth", "time", "reviewer", "round", "effort", "judgments", "reason"]

VALID_SWEEP = """\
[sweep]
seeds = 2
policies = ["relevance", "random"]
stopping = ["knee", "budget:2R+100"]
effort_models = ["judge", "lambda:0.5"]
recall_target = 0.8

[[collections]]
path = "small"
topics = ["T1"]

[review]
until = "exhausted"
max_effort = "2R+50"
lambda = 0.0001
retrain_seconds = 1.5

[review.time_model]
document_seconds = 7.8
"""

# ---- a small valid study to plug the fuzzed file into ------------------------------------------------------------


@pytest.fixture(scope="module")
def valid(tmp_path_factory) -> Path:
    """A tiny collection (docs, qrels, topics), a run over it, and a real ledger from `tarsim simulate`."""
    root = tmp_path_factory.mktemp("valid")
    dataset, sentence_qrels = make_synthetic_dataset(
        SyntheticSpec(n_documents=40, prevalences=(0.2,), vocabulary_size=100, topic_words=10, seed=3)
    )
    write_collection(root / "docs.jsonl", dataset.collection)
    # A short qrels file (the relevant documents and a few others), so that a change to a line often matters.
    judged = dict(sorted(dataset.qrels["T1"].items(), key=lambda item: (-item[1], item[0]))[:12])
    write_qrels(root / "qrels.txt", {"T1": judged})
    write_topics(root / "topics.tsv", dataset.topics)
    write_sentence_qrels(root / "sentence-qrels.txt", sentence_qrels)
    docids = dataset.collection.docids
    write_run(root / "run.txt", {"T1": {d: float(-i) for i, d in enumerate(docids[:10])}})
    write_decisions(root / "decisions.txt", {"T1": {d: i % 2 for i, d in enumerate(docids[:10])}})
    with open(root / "screening.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["record_id", "title", "abstract", "label_included"])
        for doc in list(dataset.collection)[:10]:
            writer.writerow([doc.docid, doc.title, doc.text[:80], dataset.qrels["T1"].get(doc.docid, 0)])
    (root / "sweep.toml").write_text(VALID_SWEEP, encoding="utf-8")
    assert main([*simulate(root), "--out", str(root / "sim")]) == 0
    (ledger,) = (root / "sim" / "ledgers").glob("*.jsonl")
    (root / "ledger.jsonl").write_bytes(ledger.read_bytes())
    return root


def simulate(valid: Path, docs: Path | None = None, qrels: Path | None = None, topics: Path | None = None) -> list:
    return [
        "simulate",
        "--docs",
        str(docs or valid / "docs.jsonl"),
        "--qrels",
        str(qrels or valid / "qrels.txt"),
        "--topics",
        str(topics or valid / "topics.tsv"),
        "--max-effort",
        "10",
    ]


# ---- the checks ----------------------------------------------------------------------------------------------


# Failures of issue 10 that other changes fix, by exception and place (file, function) of the innermost tarsim
# frame. Fuzzing finds them only now and then: a fuzz test that hits one goes on, and ends as xfail naming it (any
# other failure still fails). The smallest inputs, in FOUND at the end, fail every time (strict xfail: they flip
# to a failure, i.e. a pass to look at, once fixed).
KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}  # none left: every failure below is a real one
HIT: set[str] = set()  # the known failures the running test met


def is_known(exc: BaseException) -> bool:
    """Whether `exc` is a known failure of issue 10 (then recorded in HIT)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/tarsim/" in f.filename.replace("\\", "/")]
    if not frames:
        return False
    where = frames[-1].filename.replace("\\", "/").split("/tarsim/")[-1]
    for key in ((type(exc).__name__, where, frames[-1].name), (type(exc).__name__, where, "*")):
        if key in KNOWN_FAILURES:
            HIT.add(f"{KNOWN_FAILURES[key]} at {where}:{frames[-1].lineno}")
            return True
    return False


def xfail_known(test: Callable) -> Callable:
    """Run a (hypothesis) test; if it met only known failures, report it as xfail naming them."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        HIT.clear()
        test(*args, **kwargs)
        if HIT:
            pytest.xfail("issue 10: " + "; ".join(sorted(HIT)))

    return run


def library_reader_refuses_cleanly(reader: Callable[[Path], object], path: Path) -> None:
    """The reader returns or raises a TarsimError; any warning it gives is an InputWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reader(path)
        except TarsimError:
            pass
        except Exception as exc:
            if not is_known(exc):
                raise
    others = [w for w in caught if not issubclass(w.category, InputWarning) and "tarsim" in w.filename]
    assert not others, [str(w.message) for w in others]


def leftovers(folder: Path) -> list[str]:
    """Hidden, partial or temporary files under `folder` (an output lock file may stay: the OS releases it)."""
    if not folder.exists():
        return []
    return [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if (p.name.startswith(".") and not p.name.endswith(".lock")) or p.name.endswith((".partial", ".tmp"))
    ]


def cli_exits_cleanly(argv: list[str], out: Path | None = None) -> None:
    """`tarsim ARGV` returns 0 or 2, lets no exception out (a traceback) and leaves no partial file in `out`."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
        except Exception as exc:  # a traceback for the user
            if is_known(exc):
                return
            raise
    assert code in (0, 2), stderr.getvalue()
    assert "Traceback" not in stderr.getvalue()
    if code == 2:
        assert "error:" in stderr.getvalue()
    if out is not None:
        assert not leftovers(out), leftovers(out)


def fuzz_file(name: str, content: str | bytes) -> tuple[Path, tempfile.TemporaryDirectory]:
    folder = tempfile.TemporaryDirectory()
    path = Path(folder.name) / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        path.write_bytes(content)
    return path, folder


# ---- library readers -----------------------------------------------------------------------------------------

READERS: dict[str, tuple[str, Callable[[Path], object], st.SearchStrategy]] = {
    # name: (file name, reader, structured strategy)
    "qrels": ("qrels.txt", read_qrels, rows(4)),
    "run": ("run.txt", read_run, rows(6)),
    "topics": ("topics.tsv", read_topics, rows(2)),
    "sentence_qrels": ("sentence-qrels.txt", read_sentence_qrels, rows(4)),
    "decisions": ("decisions.txt", read_decisions, rows(3)),
    "collection": ("docs.jsonl", read_collection, json_lines(DOC_KEYS)),
    "ledger": ("ledger.jsonl", read_ledger, json_lines(LEDGER_KEYS)),
}


@pytest.mark.parametrize("name", list(READERS))
@xfail_known
@FUZZ
@given(content=BYTES)
def test_library_readers_on_random_bytes(name, content):
    file_name, reader, _ = READERS[name]
    path, folder = fuzz_file(file_name, content)
    with folder:
        library_reader_refuses_cleanly(reader, path)


@pytest.mark.parametrize("name", list(READERS))
@xfail_known
@FUZZ
@given(data=st.data())
def test_library_readers_on_random_rows_and_json_lines(name, data):
    file_name, reader, structured = READERS[name]
    content = data.draw(st.one_of(structured, rows(4), json_lines(DOC_KEYS)))
    path, folder = fuzz_file(file_name, content)
    with folder:
        library_reader_refuses_cleanly(reader, path)


# ASReview CSV: a header drawn from the known columns (in any order, sometimes twice) and rows of random fields.
CSV_COLUMNS = ["title", "abstract", "label_included", "record_id", "other"]
LABEL = st.one_of(st.sampled_from(["0", "1", "", "1.0", "0.9", "1.5", "-0.5", "inf", "nan", "yes"]), FIELD)


@st.composite
def asreview_csv(draw) -> str:
    header = draw(st.lists(st.sampled_from(CSV_COLUMNS), min_size=0, max_size=6))
    body = draw(st.lists(st.lists(st.one_of(FIELD, LABEL), min_size=len(header), max_size=len(header)), max_size=5))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    return buffer.getvalue()


@xfail_known
@FUZZ
@given(content=st.one_of(asreview_csv(), BYTES))
def test_asreview_csv_reader(content):
    path, folder = fuzz_file("screening.csv", content)
    with folder:
        library_reader_refuses_cleanly(read_asreview_csv, path)


# Sweep TOML: the known tables and keys with random values (bounded seeds: 10**9 seeds exhausts memory, issue 10).
TOML_VALUE = st.one_of(
    st.integers(-3, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=8),
    st.sampled_from(["relevance", "random", "knee", "2R+10", "judge", "all", "bmi", "exhausted", "sentence"]),
    st.lists(st.sampled_from(["relevance", "T1", "knee", "judge", "lambda:2", "budget:2R+100", "x"]), max_size=3),
)
SWEEP_TABLES = {
    "sweep": ["out", "base_seed", "seeds", "policies", "strategies", "effort_models", "stopping", "recall_target"],
    "review": [
        *("until", "max_effort", "batch", "rank_by", "seeding", "presumed_nonrelevant", "sentence_oracle"),
        *("false_negative_rate", "reviewers", "async_retrain", "retrain_seconds", "lambda", "learner", "polcy"),
    ],
    "review.time_model": ["document_seconds", "sentence_seconds", "seconds_per_word"],
    "review.features": ["stem", "min_df", "sublinear_tf"],
}


def toml_literal(value) -> str:
    """A TOML literal (json.dumps writes valid TOML strings; floats need TOML's inf/nan)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_literal, value)) + "]"
    return json.dumps(value)


@st.composite
def sweep_toml(draw) -> str:
    lines = []
    for table, keys in SWEEP_TABLES.items():
        chosen = draw(st.dictionaries(st.sampled_from(keys), TOML_VALUE, max_size=4))
        if chosen or table == "sweep":
            lines.append(f"[{table}]")
            lines.extend(f"{key} = {toml_literal(value)}" for key, value in chosen.items())
    for _ in range(draw(st.integers(0, 2))):
        lines.append("[[collections]]")
        path = draw(st.one_of(st.just("small"), st.just("missing"), st.just("small/*"), st.text(max_size=5)))
        lines.append(f"path = {toml_literal(path)}")
        if draw(st.booleans()):
            lines.append(f"topics = {toml_literal(draw(st.one_of(st.just('all'), TOML_VALUE)))}")
    return "\n".join(lines) + "\n"


def sweep_dry_run(valid: Path, content: str | bytes) -> None:
    """The config beside a copy of the valid collection: `load_sweep_config` and `tarsim sweep --dry-run`."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "small").mkdir()
        for name in ("docs.jsonl", "qrels.txt", "topics.tsv"):
            (root / "small" / name).symlink_to(valid / name)
        path = root / "sweep.toml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        library_reader_refuses_cleanly(load_sweep_config, path)
        cli_exits_cleanly(["sweep", str(path), "--dry-run"], root)


@xfail_known
@FUZZ_CLI
@given(content=st.one_of(sweep_toml(), BYTES, st.text(max_size=80)))
def test_sweep_config(valid, content):
    sweep_dry_run(valid, content)


# ---- through the CLI -----------------------------------------------------------------------------------------


def cli_case(valid: Path, name: str, path: Path, out: Path) -> list[str]:
    """The command that reads the fuzzed file `path` as a `name` (the other inputs valid)."""
    if name == "qrels":
        return ["evaluate", str(path), str(valid / "run.txt")]
    if name == "run":
        return ["evaluate", str(valid / "qrels.txt"), str(path)]
    if name == "topics":
        return [*simulate(valid, topics=path), "--out", str(out)]
    if name == "collection":
        return [*simulate(valid, docs=path), "--out", str(out)]
    if name == "sentence_qrels":
        return [*simulate(valid), "--feedback", "sentence", "--sentence-oracle", str(path), "--out", str(out)]
    if name == "ledger-stop":
        return ["stop", str(path.parent)]
    if name == "ledger-compare":
        return ["compare", str(path.parent), "--baseline", "relevance"]
    raise AssertionError(name)


CLI_FILES = {
    "qrels": "qrels.txt",
    "run": "run.txt",
    "topics": "topics.tsv",
    "collection": "docs.jsonl",
    "sentence_qrels": "sentence-qrels.txt",
    "ledger-stop": "ledger.jsonl",
    "ledger-compare": "ledger.jsonl",
}
CLI_STRUCTURED = {
    "qrels": rows(4),
    "run": rows(6),
    "topics": rows(2),
    "collection": json_lines(DOC_KEYS),
    "sentence_qrels": rows(4),
    "ledger-stop": json_lines(LEDGER_KEYS),
    "ledger-compare": json_lines(LEDGER_KEYS),
}


@pytest.mark.parametrize("name", list(CLI_FILES))
@xfail_known
@FUZZ_CLI
@given(data=st.data())
def test_cli_on_fuzzed_inputs(valid, name, data):
    content = data.draw(st.one_of(BYTES, CLI_STRUCTURED[name]))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in" / CLI_FILES[name]
        path.parent.mkdir()
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        out = Path(folder) / "out"
        cli_exits_cleanly(cli_case(valid, name, path, out), out)


# ---- valid inputs with one thing changed: where the readers' checks are really exercised ------------------------


@st.composite
def mutated(draw, text: str, kind: str) -> str:
    """`text` (a valid file of `kind` tsv, json or csv) with one field replaced, dropped or added, one line
    dropped or doubled, or the file cut short."""
    lines = text.splitlines()
    how = draw(st.sampled_from(["replace", "drop", "add", "line", "double", "truncate"]))
    if how == "truncate":
        return text[: draw(st.integers(0, len(text) - 1))]
    index = draw(st.integers(0, len(lines) - 1))
    if kind == "json" and draw(st.booleans()):
        index = 0  # the header (or the first document) half of the time: most checks are about it
    if how in ("line", "double"):
        lines[index : index + 1] = [] if how == "line" else [lines[index]] * 2
        return "\n".join(lines) + "\n"
    if kind == "json":
        record = json.loads(lines[index])
        key = draw(st.sampled_from(sorted(record) or ["x"]) if how != "add" else st.sampled_from([*LEDGER_KEYS, "x"]))
        if how == "drop":
            record.pop(key, None)
        else:
            record[key] = draw(JSON_VALUE)
        lines[index] = json.dumps(record)
    else:
        fields = next(csv.reader([lines[index]])) if kind == "csv" else lines[index].split()
        position = draw(st.integers(0, max(len(fields) - 1, 0)))
        if how == "drop" and fields:
            fields.pop(position)
        elif how == "add":
            fields.insert(position, draw(FIELD))
        elif fields:
            fields[position] = draw(st.one_of(FIELD, LABEL) if kind == "csv" else FIELD)
        if kind == "csv":
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="").writerow(fields)
            lines[index] = buffer.getvalue()
        else:
            lines[index] = " ".join(fields)
    return "\n".join(lines) + "\n"


def mutated_toml(text: str) -> st.SearchStrategy[str]:
    """The valid sweep config with one value replaced by a random TOML value, or one line dropped."""
    lines = text.splitlines()
    keyed = [i for i, line in enumerate(lines) if " = " in line]

    def replace(index: int, value) -> str:
        changed = list(lines)
        changed[index] = f"{changed[index].split(' = ')[0]} = {toml_literal(value)}"
        return "\n".join(changed) + "\n"

    dropped = st.integers(0, len(lines) - 1).map(lambda i: "\n".join(lines[:i] + lines[i + 1 :]) + "\n")
    return st.one_of(st.builds(replace, st.sampled_from(keyed), TOML_VALUE), dropped)


# name: (valid file, kind, library reader, CLI command builder or None)
MUTATED: dict[str, tuple[str, str, Callable[[Path], object], Callable[[Path, Path, Path], list[str]] | None]] = {
    "qrels": ("qrels.txt", "tsv", read_qrels, lambda v, p, o: ["evaluate", str(p), str(v / "run.txt")]),
    "run": ("run.txt", "tsv", read_run, lambda v, p, o: ["evaluate", str(v / "qrels.txt"), str(p)]),
    "topics": ("topics.tsv", "tsv", read_topics, lambda v, p, o: [*simulate(v, topics=p), "--out", str(o)]),
    "sentence_qrels": (
        "sentence-qrels.txt",
        "tsv",
        read_sentence_qrels,
        lambda v, p, o: [*simulate(v), "--feedback", "sentence", "--sentence-oracle", str(p), "--out", str(o)],
    ),
    "decisions": ("decisions.txt", "tsv", read_decisions, None),
    "collection": ("docs.jsonl", "json", read_collection, lambda v, p, o: [*simulate(v, docs=p), "--out", str(o)]),
    "asreview_csv": ("screening.csv", "csv", read_asreview_csv, None),
    "ledger-stop": ("ledger.jsonl", "json", read_ledger, lambda v, p, o: ["stop", str(p)]),
}


@pytest.mark.parametrize("name", list(MUTATED))
@xfail_known
@FUZZ_CLI
@given(data=st.data())
def test_mutated_valid_inputs(valid, name, data):
    file_name, kind, reader, command = MUTATED[name]
    content = data.draw(mutated((valid / file_name).read_text(encoding="utf-8"), kind))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in" / file_name
        path.parent.mkdir()
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
        library_reader_refuses_cleanly(reader, path)
        if command is not None:
            out = Path(folder) / "out"
            cli_exits_cleanly(command(valid, path, out), out)


@pytest.mark.parametrize("command", ["report", "stop", "compare"])
@xfail_known
@FUZZ_CLI
@given(data=st.data())
def test_mutated_ledger_in_a_simulate_output(valid, command, data):
    """A simulate output whose one ledger is mutated, read by `report --write`, `stop` or `compare`."""
    content = data.draw(mutated((valid / "ledger.jsonl").read_text(encoding="utf-8"), "json"))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "sim"
        (out / "ledgers").mkdir(parents=True)
        (out / "ledgers" / "T1.jsonl").write_text(content, encoding="utf-8")
        argv = {
            "report": ["report", str(out), "--write"],
            "stop": ["stop", str(out / "ledgers")],
            "compare": ["compare", str(out / "ledgers"), "--baseline", "relevance"],
        }[command]
        cli_exits_cleanly(argv, out)


@xfail_known
@FUZZ_CLI
@given(data=st.data())
def test_mutated_sweep_config(valid, data):
    sweep_dry_run(valid, data.draw(mutated_toml(VALID_SWEEP)))


# ---- the smallest failing inputs the fuzzing found (issue 10): each one should flip to a pass when fixed --------

DROP = object()  # a header key removed
FOUND = {
    # id: (file name, content or the change to the valid ledger's header (or first judgment), command or reader,
    # where it fails today)
    "asreview-label-inf": (
        "screening.csv",
        "title,abstract,label_included\na,b,inf\n",
        read_asreview_csv,
        "OverflowError in data/asreview_csv.py (int(float('inf')))",
    ),
    "qrels-grade-20-digits": (
        "qrels.txt",
        "T1 0 d0000000 100000000000000000000\n",
        lambda v, p, o: ["evaluate", str(p), str(v / "run.txt")],
        "OverflowError in metrics/ranked.py evaluate_run (np.int64 of the grade)",
    ),
    "ledger-collection-size-null-report": (
        "ledger.jsonl",
        {"collection_size": None},
        lambda v, p, o: ["report", str(o), "--write"],
        "TypeError in data/ledger.py Ledger.collection_size (int(None)); also compare",
    ),
    "ledger-relevant-missing-report": (
        "ledger.jsonl",
        {"relevant": DROP},
        lambda v, p, o: ["report", str(o), "--write"],
        "KeyError 'relevant' in data/ledger.py Ledger.relevant; also stop, compare",
    ),
    "ledger-config-missing-report": (
        "ledger.jsonl",
        {"config": DROP},
        lambda v, p, o: ["report", str(o), "--write"],
        "KeyError 'config' in api.py SimulationResult.from_directory",
    ),
    "ledger-config-true-report": (
        "ledger.jsonl",
        {"config": True},
        lambda v, p, o: ["report", str(o), "--write"],
        "TypeError in simulator/config.py normalise_config ('bool' object is not a mapping)",
    ),
    "ledger-config-null-stop": (
        "ledger.jsonl",
        {"config": None},
        lambda v, p, o: ["stop", str(p)],
        "AttributeError in cli/stop.py ('NoneType' object has no attribute 'get')",
    ),
    "ledger-config-null-compare": (
        "ledger.jsonl",
        {"config": None},
        lambda v, p, o: ["compare", str(p.parent), "--baseline", "relevance"],
        "AttributeError in reporting/compare.py _flatten ('NoneType' object has no attribute 'items')",
    ),
    "ledger-seed-null-compare": (
        "ledger.jsonl",
        {"seed": None},
        lambda v, p, o: ["compare", str(p.parent), "--baseline", "relevance"],
        "TypeError in reporting/compare.py pair_key (int(None))",
    ),
    "ledger-docid-null-compare": (
        "ledger.jsonl",
        {"judgment": {"docid": None}},
        lambda v, p, o: ["compare", str(p.parent), "--baseline", "relevance"],
        "TypeError in metrics/recall_effort.py first_relevant_presentations (sorting None with str)",
    ),
}


@pytest.mark.parametrize("case", list(FOUND))
@xfail_known
def test_inputs_found_by_fuzzing(valid, tmp_path, case):
    file_name, content, use, _ = FOUND[case]
    if isinstance(content, dict):
        records = [json.loads(line) for line in (valid / file_name).read_text(encoding="utf-8").splitlines()]
        judgment = next(r for r in records if r["type"] == "judgment")
        for key, value in content.items():
            if key == "judgment":
                judgment.update(value)
            elif value is DROP:
                del records[0][key]
            else:
                records[0][key] = value
        content = "\n".join(map(json.dumps, records)) + "\n"
    out = tmp_path / "out"
    path = (out / "ledgers" if file_name.endswith(".jsonl") else tmp_path) / file_name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    if use is read_asreview_csv:
        library_reader_refuses_cleanly(use, path)
    else:
        cli_exits_cleanly(use(valid, path, out), out)
