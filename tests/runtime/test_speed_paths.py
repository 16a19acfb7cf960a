"""Speed paths of issue 13: one feature cache per user, lean imports on the simulate path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tarsim.features.build
import tarsim.features.cache
from tarsim.cli import main
from tarsim.data import write_collection, write_qrels, write_topics
from tarsim.data.collection import Document
from tarsim.features.cache import default_cache_dir, resolve_cache_dir

WORDS = ["oil", "gold", "coffee", "crude", "price", "market", "bank", "rate", "grain", "wheat", "shares", "profit"]


def _documents() -> list[Document]:
    return [
        Document(
            f"d{i}", f"title {WORDS[i % 12]}", f"{WORDS[i % 12]} {WORDS[(i * 5) % 12]}. More {WORDS[(i + 3) % 12]}."
        )
        for i in range(24)
    ]


@pytest.fixture
def collection(tmp_path) -> Path:
    directory = tmp_path / "c"
    write_collection(directory / "docs.jsonl", _documents())
    write_topics(directory / "topics.tsv", {"t1": "oil gold"})
    write_qrels(directory / "qrels.txt", {"t1": {"d0": 1, "d1": 1, "d12": 1, "d2": 0}})
    return directory


def _simulate(collection: Path, out: Path, *extra: str) -> int:
    args = ["simulate", "--collection", str(collection), "--topic", "t1", "--max-effort", "2R+10", "--effort", "judge"]
    return main([*args, "--out", str(out), *extra])


def test_the_cache_location_follows_argument_then_environment_then_platformdirs(tmp_path, monkeypatch):
    monkeypatch.setenv("TARSIM_CACHE_DIR", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env"
    assert resolve_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_cache_dir(None) == tmp_path / "env"
    monkeypatch.delenv("TARSIM_CACHE_DIR")
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda *a, **k: str(tmp_path / "user"))
    assert default_cache_dir() == tmp_path / "user" / "features"


def test_two_outputs_share_one_cache_entry_and_the_second_builds_nothing(tmp_path, collection, monkeypatch):
    cache = Path(os.environ["TARSIM_CACHE_DIR"])  # the private cache of conftest.py
    assert _simulate(collection, tmp_path / "first") == 0
    entries = sorted(cache.glob("features-*.npz"))
    assert len(entries) == 1
    assert not (tmp_path / "first" / "cache").exists()  # nothing cached inside the output any more
    monkeypatch.setattr(
        tarsim.features.cache, "build_features", lambda *a, **k: pytest.fail("second run built features")
    )
    assert _simulate(collection, tmp_path / "second") == 0
    assert sorted(cache.glob("features-*.npz")) == entries
    first, second = (tmp_path / name / "ledgers" / "t1.jsonl" for name in ("first", "second"))
    assert first.read_bytes() == second.read_bytes()


def test_cache_dir_option_moves_the_cache(tmp_path, collection):
    assert _simulate(collection, tmp_path / "out", "--cache-dir", str(tmp_path / "mine")) == 0
    assert len(list((tmp_path / "mine").glob("features-*.npz"))) == 1
    assert not list(Path(os.environ["TARSIM_CACHE_DIR"]).iterdir())


def test_cache_info_and_clear(tmp_path, collection, capsys):
    cache = tmp_path / "cache"
    assert _simulate(collection, tmp_path / "out", "--cache-dir", str(cache)) == 0
    (cache / "notes.txt").write_text("not tarsim's")
    capsys.readouterr()
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    entry = next(cache.glob("features-*.npz"))
    store = next(cache.glob("sentences-*.npz"))  # the sentences the review segmented (a document review)
    assert f"cache: {cache} (--cache-dir)" in out
    assert "1 feature entry, 1 sentence store(s), 0 temporary file(s) of unfinished writes; 2 file(s)" in out
    assert entry.name in out and str(collection / "docs.jsonl") in out and "min_df=2" in out
    assert store.name in out and f"sentences of {collection / 'docs.jsonl'}" in out
    killed = cache / f".{entry.name}.x1y2.tmp"  # a writer killed a minute ago (or still writing)
    killed.write_bytes(b"part of an entry")
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    assert f"{killed.name}       16 B  <temporary: being written, or left by a killed run>" in capsys.readouterr().out
    assert main(["cache", "clear", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "removed 2 file(s)" in out and "kept 1 temporary file(s) written in the last hour" in out
    assert killed.name in out  # it used to be kept without a word
    assert sorted(p.name for p in cache.iterdir()) == [killed.name, "notes.txt"]  # only tarsim's files go
    killed.unlink()
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    assert "0 feature entries, 0 sentence store(s), 0 temporary file(s) of unfinished writes; 0 file(s), 0 B" in (
        capsys.readouterr().out
    )


def test_cache_info_names_the_collection_by_its_absolute_path(tmp_path, collection, capsys, monkeypatch):
    """A run given a relative --collection labels its cache entries with the absolute path: `tarsim cache info`
    run from any other folder still tells where they came from."""
    import os

    monkeypatch.chdir(collection.parent)
    cache = tmp_path / "cache"
    assert _simulate(collection.name, tmp_path / "out", "--cache-dir", str(cache)) == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    absolute = os.path.join(os.path.realpath(collection.parent), collection.name, "docs.jsonl")
    assert f"sentences of {absolute}" in out and f" {absolute}" in out.replace(f"sentences of {absolute}", "")


def test_cache_info_reports_the_environment_variable_and_a_damaged_entry(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TARSIM_CACHE_DIR", str(tmp_path))
    import io
    import zipfile

    name = f"features-{'0' * 24}-{'a' * 16}-v3.npz"  # an entry's name, and the start of an .npz tarsim writes ...
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("meta.npy", b"x" * 200)
    (tmp_path / name).write_bytes(buffer.getvalue()[:60])  # ... cut short: a damaged entry
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"cache: {tmp_path} ($TARSIM_CACHE_DIR)" in out
    assert name in out and "<unreadable: " in out


PROBE = """
import sys

BLOCKED = {"pandas", "matplotlib", "dask", "pyarrow"}


class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"blocked {name}", name=name)


sys.meta_path.insert(0, Block())
import tarsim.api.review, tarsim.cli, tarsim.cli.simulate, tarsim.simulator.run
import tarsim.features.build, tarsim.features.cache, tarsim.features.review

tarsim.cli.build_parser("simulate")
tarsim.simulator.run.ReviewConfig(learner="pegasos")  # validating a configuration loads every learner module
print(" ".join(sorted(sys.modules)))
"""


@pytest.mark.slow
def test_the_simulate_command_imports_no_dataframe_or_plotting_library():
    """With pandas, pyarrow, matplotlib and dask made unimportable the simulate path still imports (and imports
    no scikit-learn).

    scikit-learn >= 1.6 itself imports pandas when it is installed (sklearn.utils.fixes, optional there), so the
    probe blocks those libraries rather than looking for them in sys.modules: any import by tarsim would fail.
    """
    src = str(Path(tarsim.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src}
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env)
    assert probe.returncode == 0, probe.stderr.strip().splitlines()[-1:]
    modules = set(probe.stdout.split())
    assert {"tarsim.simulator.run", "tarsim.cli.simulate"} <= modules  # the probe did import the path
    # nor scikit-learn: the first feature build or fit imports it, after a cold review started segmenting
    assert not {"pandas", "matplotlib", "dask", "pyarrow", "sklearn"} & {name.split(".")[0] for name in modules}


@pytest.mark.slow
def test_subpackages_are_attributes_of_tarsim_on_first_use():
    """`import tarsim` then `tarsim.datasets.load_dataset(...)`, as docs/from-asreview.md writes it, without the
    package importing its subpackages up front (which would put scikit-learn on every command's path)."""
    src = str(Path(tarsim.__file__).parents[1])
    probe = "import tarsim; print(tarsim.datasets.load_dataset.__name__, tarsim.metrics.__name__); tarsim.nothing"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": src}
    )
    assert result.stdout.split() == ["load_dataset", "tarsim.metrics"]
    assert result.stderr.strip().splitlines()[-1] == "AttributeError: module 'tarsim' has no attribute 'nothing'"


SWEEP = """\
[sweep]
seeds = 3
policies = ["relevance"]
strategies = ["sentence/document"]
effort_models = ["judge"]
stopping = ["budget:2R+100"]

[[collections]]
path = "demo"
topics = ["T1"]

[review]
max_effort = "2R+20"
"""


@pytest.mark.slow
def test_a_sweep_builds_features_once_and_a_second_sweep_not_at_all(tmp_path, monkeypatch):
    import tarsim.sweep.worker

    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    builds, loads = [], []
    build, load = tarsim.features.build.build_features, tarsim.sweep.worker.load_review_features
    monkeypatch.setattr(tarsim.features.cache, "build_features", lambda *a, **k: builds.append(1) or build(*a, **k))
    monkeypatch.setattr(tarsim.sweep.worker, "load_review_features", lambda *a, **k: loads.append(1) or load(*a, **k))
    assert main(["sweep", str(config), "--out", str(tmp_path / "a")]) == 0
    assert len(list((tmp_path / "a" / "ledgers").iterdir())) == 3
    assert (builds, loads) == ([1], [])  # three runs: one build, and the runs reuse it in memory
    assert main(["sweep", str(config), "--out", str(tmp_path / "b")]) == 0
    assert builds == [1]  # the second study finds the user's cache
    assert not (tmp_path / "a" / "cache").exists()


# ---- evaluation: runs read as columns ------------------------------------------------------------------------

RUN_LINES = [
    "t1 Q0 d1 1 3.5 x",
    "t1 Q0 d2 2 2.0 x",
    "t1 Q0 d3 3 2.0 x",  # tied with d2 and d9: trec_eval orders ties by docid descending
    "t1 Q0 d9 4 2.0 x",
    "t2 Q0 d1 1 1.0 x",
    "t2 Q0 d5 2 0.5 x",
    "t3 Q0 d7 1 9.0 x",  # a topic the qrels do not judge
    "t1 Q0 d4 5 -1e-3 x",  # topics need not be contiguous
]
QRELS = {"t1": {"d3": 2, "d4": 1, "d8": 1, "d1": 0}, "t2": {"d5": 1}, "t4": {"d1": 1}}


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_a_run_read_as_columns_scores_exactly_as_the_dict_reader(tmp_path):
    from tarsim.data import read_run
    from tarsim.data.runs import RunTable, read_run_table
    from tarsim.metrics import evaluate_run

    path = _write(tmp_path / "run", "\n".join(RUN_LINES) + "\n")
    table = read_run_table(path)
    assert isinstance(table, RunTable) and len(table) == len(RUN_LINES)
    assert table.to_dict() == read_run(path)
    for missing in ("zero", "skip"):
        by_columns = evaluate_run(QRELS, table, ["R@2", "RPrec", "AP", "nDCG@3", "RR", "P@4"], missing=missing)
        by_dict = evaluate_run(QRELS, read_run(path), ["R@2", "RPrec", "AP", "nDCG@3", "RR", "P@4"], missing=missing)
        assert by_columns == by_dict
    # d3 ranks 3rd (behind d1 and the tie-winner d9), so RR is 1/3; d4 ranks 5th; d8 is not retrieved
    assert evaluate_run(QRELS, table, ["RR", "R@4"])["t1"] == {"RR": 1 / 3, "R@4": 1 / 3}


def test_both_readers_rank_scores_as_float32_as_pytrec_eval(tmp_path):
    """Scores equal in float32 tie (docid descending) on both paths; beyond float32's range they tie too."""
    import warnings

    pytrec_eval = pytest.importorskip("pytrec_eval")
    from tarsim.data import read_run
    from tarsim.data.runs import RunTable, read_run_table
    from tarsim.metrics import evaluate_run

    scores = {"t1": {"a": 0.1000000002, "b": 0.1000000001, "c": 0.1000000001, "d": 0.05}}
    scores["t2"] = {"a": 1234.56789, "z": 1234.56785, "m": 1e39, "n": 2e39, "b": 3.0}
    qrels = {"t1": {"a": 1, "c": 0}, "t2": {"a": 1, "m": 1, "z": 0}}
    lines = [f"{t} Q0 {d} {r} {s!r} x" for t, docs in scores.items() for r, (d, s) in enumerate(docs.items(), 1)]
    path = _write(tmp_path / "run", "\n".join(lines) + "\n")
    table = read_run_table(path)
    assert isinstance(table, RunTable)
    names = {"RR": "recip_rank", "P@1": "P_1", "AP": "map", "nDCG": "ndcg", "RPrec": "Rprec"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(read_run(path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning from 1e39
        for run in (table, read_run(path)):
            got = evaluate_run(qrels, run, list(names))
            for topic in qrels:
                assert got[topic] == pytest.approx({n: expected[topic][k] for n, k in names.items()}, abs=1e-12)
    assert expected["t1"]["recip_rank"] == pytest.approx(1 / 3)  # c > b > a: the float32 tie, by docid
    assert expected["t2"]["recip_rank"] == pytest.approx(1 / 2)  # n and m tie at inf: n first, then m
    as_double = [evaluate_run(qrels, run, ["RR"], scores="float64") for run in (table, read_run(path))]
    assert as_double[0] == as_double[1] == {"t1": {"RR": 1.0}, "t2": {"RR": 1 / 2}}  # as trec_eval 10.0: a first


@pytest.mark.parametrize(
    "text",
    [
        "t1\tQ0 d1 1 3.5 x\nt1 Q0 d2 2 1.0 x\n",  # a tab
        "t1 Q0  d1 1 3.5 x\n",  # two spaces
        " t1 Q0 d1 1 3.5 x\n",  # a leading space
        "t1 Q0 d1 1 3.5 x \n",  # a trailing space
        "t1 Q0 d1 1 3.5 x\r\nt1 Q0 d2 2 1.0 x\r\n",  # CRLF
        "\ufefft1 Q0 d1 1 3.5 x\n",  # a BOM
        "t1 Q0 d1 1 3.5 x\n\n\nt1 Q0 d2 2 1.0 x\n",  # blank lines
        "t1 Q0 d\u00e91 1 3.5 x\n",  # non-ASCII
    ],
)
def test_files_the_fast_reader_does_not_take_read_as_read_run_reads_them(tmp_path, text):
    from tarsim.data import read_run
    from tarsim.data.runs import read_run_table

    path = _write(tmp_path / "run", text)
    result = read_run_table(path)
    assert isinstance(result, dict) and result == read_run(path)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("t1 Q0 d1 1 3.5 x\nt1 Q0 d1 2 1.0 x\n", "run:2: duplicate docid 'd1' for topic 't1'"),
        ("t1 Q0 d1 1 nan x\n", "run:1: "),
        ("t1 Q0 d1 1.5 3.5 x\n", "run:1: "),
        ("t1 Q0 d1 1 3.5\n", "run:1: expected 6 columns"),
        ("t1 Q0 d1 1 NA x\n", "run:1: "),
        ("t1 Q0 d1 1 1_0.5 x\n", "run:1: score is not a number: '1_0.5'"),  # float() takes it, trec_eval reads 1
    ],
)
def test_bad_runs_are_refused_with_the_line_reader_s_message(tmp_path, text, problem):
    from tarsim.data.runs import read_run_table
    from tarsim.errors import InputError

    path = _write(tmp_path / "run", text)
    with pytest.raises(InputError) as caught:
        read_run_table(path)
    assert str(caught.value).startswith(str(tmp_path / problem)) and "\n" not in str(caught.value)


def test_an_unwritable_cache_costs_a_warning_not_the_run(tmp_path, collection, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    assert _simulate(collection, tmp_path / "out", "--cache-dir", str(blocked / "cache")) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "feature cache" in line]
    assert len(lines) == 1 and lines[0].startswith("tarsim: warning: cannot write the feature cache ")
    assert lines[0].endswith("(Not a directory): not cached")
    assert (tmp_path / "out" / "ledgers" / "t1.jsonl").exists()


@pytest.mark.parametrize("command", ["simulate", "cache"])
def test_a_blank_cache_dir_or_a_file_is_refused_before_anything_is_written(
    command, tmp_path, collection, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # a blank --cache-dir used to mean the current directory
    (tmp_path / "afile").write_text("not a folder")
    for value, problem in (("", "--cache-dir is empty"), ("afile", "--cache-dir afile: is a file")):
        if command == "simulate":
            code = _simulate(collection, tmp_path / "out", "--cache-dir", value)
        else:
            code = main(["cache", "info", "--cache-dir", value])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and problem in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "c"]  # no output, no cache entry in the cwd
    monkeypatch.setenv("TARSIM_CACHE_DIR", "afile")
    assert main(["cache", "info"]) == 2
    assert "TARSIM_CACHE_DIR afile: is a file" in capsys.readouterr().err


# ---- document counts without segmentation ------------------------------------------------------------------------


def _same_counts(collection) -> None:
    from tarsim.features.build import document_counts, segmented_document_counts

    direct, direct_terms = document_counts(collection, n_jobs=1)
    segmented, segmented_terms = segmented_document_counts(collection, n_jobs=1)
    assert list(direct_terms) == list(segmented_terms)
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(direct, name), getattr(segmented, name)), name


def test_document_counts_from_the_text_equal_the_sums_of_sentence_counts_on_constructed_documents():
    from tarsim.data.collection import Collection

    documents = [
        Document("a", "LOTUS <LOTS> EXTENDS", "Lotus said it will\nextend its upgrade. It rose.\n   Reuter"),
        Document("b", "", "Methods: we did.; Results: fine (p<0.05).Conclusion: none"),
        Document("c", "only a title", ""),
        Document("d", "", "", sentences=("Given sentence one.", "and two")),
        Document("e", "", ""),
    ]
    _same_counts(Collection(documents))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["reuters21578", "srd/Cohen_2006_ADHD"])
def test_document_counts_from_the_text_equal_the_sums_of_sentence_counts_on_real_data(name):
    from itertools import islice

    from conftest import shared_dataset
    from tarsim.data.collection import Collection, iter_documents

    path = shared_dataset(*name.split("/"), "docs.jsonl")
    _same_counts(Collection(list(islice(iter_documents(path), 400)), source=str(path)))


# ---- start-up: what the simulate command imports ---------------------------------------------------------------

STARTUP_PROBE = """
import sys

from tarsim.cli import build_parser
from tarsim.components.registry import KINDS

build_parser("simulate").format_help()
loaded = [key for key, kind in KINDS.items() if kind.loaded] or ["none"]
built = set(sys.modules)
from tarsim.cli import main

status = main(sys.argv[1:])
print(status)
print(" ".join(loaded))
print(" ".join(sorted(built)))
print(" ".join(sorted(sys.modules)))
"""


@pytest.mark.slow
def test_a_simulate_run_imports_neither_numba_nor_unused_estimators_and_its_parser_no_component(tmp_path, collection):
    """Building the simulate parser (help text included) loads no kind of component; the run imports the
    estimator its learner needs only: not numba (the pegasos learner's), the random forest or naive Bayes."""
    src = str(Path(tarsim.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src}
    args = ["simulate", "--collection", str(collection), "--topic", "t1", "--max-effort", "2R+10", "--effort", "judge"]
    command = [sys.executable, "-c", STARTUP_PROBE, *args, "--learner", "bmi", "--out", str(tmp_path / "out")]
    probe = subprocess.run(command, capture_output=True, text=True, env=env)
    status, loaded, built, ran = probe.stdout.splitlines()[-4:]
    assert status == "0", probe.stderr.strip().splitlines()[-1:]
    built_modules, ran_modules = set(built.split()), set(ran.split())
    assert "tarsim.cli.simulate" in built_modules and "tarsim.simulator.review" in ran_modules
    assert loaded == "none"  # the help text did not load the built-ins of any kind
    assert not {"tarsim.learners.pegasos", "tarsim.features.extractors"} & built_modules
    assert {"tarsim.learners.pegasos", "tarsim.features.extractors", "sklearn.linear_model"} <= ran_modules
    unused = {"numba", "llvmlite", "yaml", "sklearn.ensemble", "sklearn.naive_bayes", "sklearn.tree"}
    assert not unused & ran_modules


def test_the_declared_forms_of_each_kind_are_its_built_ins_signatures():
    """The option help is written from Kind.forms without importing the built-ins: they must not drift."""
    from tarsim.components import kind, signature
    from tarsim.components.registry import KINDS

    kind("learner")  # declares the kinds
    assert len(KINDS) == 8
    for key, declared in KINDS.items():
        classes = [declared.components[name] for name in declared.names(plugins=False)]  # in listing order
        built_in = [cls for cls in classes if cls.__module__ in declared.modules]
        assert declared.forms == tuple(signature(cls) for cls in built_in), key


def test_option_help_is_the_same_before_and_after_the_components_are_loaded():
    """`--learner`'s help lists every built-in learner, from the declared forms (not yet loaded) or the classes."""
    import argparse

    from tarsim.components import kind
    from tarsim.components.schema import add_options
    from tarsim.config.review import ReviewConfig

    def helps() -> dict[str, str]:
        parser = argparse.ArgumentParser()
        add_options(parser, ReviewConfig)
        return {action.dest: action.help for action in parser._actions}

    learner = kind("learner")
    saved = learner.loaded, learner.components
    learner.loaded, learner.components = False, {}  # as in a fresh process: nothing imported, nothing registered
    try:
        before = helps()
        assert not learner.loaded and not learner.components  # the help came from the declared forms
    finally:
        learner.loaded, learner.components = saved
    for key in ("learner", "policy", "batch", "effort", "oracle", "stopping", "preset", "features"):
        kind(key).load()
    assert before == helps()
    assert "bmi | logistic | nb | svm | rf | pegasos (all: tarsim list learner)" in before["learner"]
