"""Pieces that join the registry, online stopping and screening files: `tarsim simulate --stop`, screening files
as sweep collections (a file path, and a glob over a folder of them), and `tarsim stop`/`tarsim plot` replaying
target:T over ledgers of several collections (`--collection` repeated)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ledger_factory
from tarsim.cli import main
from tarsim.data import write_collection, write_qrels, write_topics
from tarsim.data.collection import Document
from tarsim.sweep import expand_plan, parse_sweep_config
from tarsim.sweep.plan import load_collections


@pytest.mark.slow
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


@pytest.mark.slow
def test_per_topic_recall_beyond_a_budget_is_unknown():
    """The per-topic table's Recall@2R+100 is n/a where a review stopped by --max-effort spent less (as the grid)."""
    import tarsim
    from tarsim.reporting.tables import topic_table_rows

    short = tarsim.simulate(topic="T3", max_effort="50")
    row = topic_table_rows(short.ledgers.values())[0]
    assert row["judged"] == 50 and row["recall_2R+100"] is None
    full = tarsim.simulate(topic="T3", max_effort="2R+100")
    assert topic_table_rows(full.ledgers.values())[0]["recall_2R+100"] is not None


# ---- target:T replayed over ledgers of several collections ----------------------------------------------------
TARGET_RULES = ["--rule", "target:2", "--rule", "target:4"]


def _small_collection(directory: Path, relevant_every: int) -> Path:
    """60 documents, topic T1 (as the demo's first topic) relevant on every `relevant_every`-th document."""
    documents = [
        Document(
            f"s{i}", f"Trial {i} of {'triptan for migraine' if i % relevant_every == 0 else 'diet for knee pain'}."
        )
        for i in range(60)
    ]
    directory.mkdir(parents=True)
    write_collection(directory / "docs.jsonl", documents)
    write_topics(directory / "topics.tsv", {"T1": "migraine triptan"})
    write_qrels(directory / "qrels.txt", {"T1": {f"s{i}": int(i % relevant_every == 0) for i in range(60)}})
    return directory


@pytest.fixture(scope="module")
def two_collections(tmp_path_factory):
    """The demo collection and a small one, each in a folder, and one folder `runs` with ledgers of both (T1)."""
    from tarsim.data.export import write_dataset_directory
    from tarsim.datasets.synthetic import demo_dataset

    base = tmp_path_factory.mktemp("two-collections")
    demo = write_dataset_directory(demo_dataset(), base / "demo")
    small = _small_collection(base / "small", relevant_every=7)
    runs = base / "runs"
    for name, collection, budget in (("demo", demo, "R+40"), ("small", small, "60")):
        args = ["--collection", str(collection), "--topic", "T1", "--max-effort", budget, "--effort", "judge"]
        assert main(["simulate", *args, "--out", str(runs / name)]) == 0
    return {"demo": demo, "small": small, "runs": runs}


def _stop_rows(capsys, *args: object) -> list[dict]:
    assert main(["stop", *map(str, args), *TARGET_RULES, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _run_lines(text: str) -> list[str]:
    """The per-run table of `tarsim stop --runs`: the last block of the text output (after the summary)."""
    return text.rstrip("\n").split("\n\n")[-1].splitlines()


def _refused(capsys, *args: object) -> str:
    """The one error line of a command that must fail (exit 2, no traceback)."""
    assert main(list(map(str, args))) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    return err


@pytest.mark.slow
def test_stop_replays_target_over_ledgers_of_several_collections(two_collections, capsys):
    """One command replays target:T on ledgers of two collections; each ledger's rows equal those of replaying it
    alone with its own collection, and those evaluate_stopping gives with that collection's docids and qrels."""
    from tarsim.data.ledger import read_ledger
    from tarsim.datasets import load_dataset
    from tarsim.stopping import evaluate_stopping

    demo, small, runs = two_collections["demo"], two_collections["small"], two_collections["runs"]
    together = _stop_rows(capsys, runs, "--collection", demo, "--collection", small)
    alone = _stop_rows(capsys, runs / "demo", "--collection", demo) + _stop_rows(
        capsys, runs / "small", "--collection", small
    )
    assert sorted(together, key=json.dumps) == sorted(alone, key=json.dumps) and len(together) == 4
    assert _stop_rows(capsys, runs, "--collection", small, "--collection", demo) == together  # any order
    for name, collection in (("demo", demo), ("small", small)):
        dataset = load_dataset(collection)
        ledger = read_ledger(runs / name / "ledgers" / "T1.jsonl")
        for row in (row for row in together if row["ledger"] == ledger.source):
            outcome = evaluate_stopping(ledger, row["rule"], docids=dataset.collection.docids, qrels=dataset.qrels)
            assert outcome.stopped and row["stopped"]  # every target was presented: the rule fired
            assert (row["position"], row["effort_judge"]) == (outcome.position, outcome.effort["judge"])


@pytest.mark.slow
def test_stop_refuses_a_ledger_none_of_the_collections_can_replay(two_collections, tmp_path, capsys):
    demo, runs = two_collections["demo"], two_collections["runs"]
    other = _small_collection(tmp_path / "other", relevant_every=5)
    err = _refused(capsys, "stop", runs, *TARGET_RULES, "--collection", demo, "--collection", other)
    assert str(runs / "small" / "ledgers" / "T1.jsonl") in err
    assert f"was reviewed on none of the given collections ({demo}, {other})" in err
    err = _refused(capsys, "stop", runs, *TARGET_RULES, "--collection", demo)  # one collection: as before
    assert f"T1.jsonl: was not reviewed on {demo} (its collection digest differs)" in err
    err = _refused(capsys, "plot", runs, "--out", tmp_path / "f.png", "--stopping", "target:2", "--collection", demo)
    assert "was not reviewed on" in err and not (tmp_path / "f.png").exists()
    args = ["--stopping", "target:2", "--collection", demo, "--collection", other]
    err = _refused(capsys, "plot", runs, "--out", tmp_path / "f.png", *args)
    assert "was reviewed on none of the given collections" in err and not (tmp_path / "f.png").exists()


def test_a_ledger_that_records_no_collection_replays_only_with_one_collection(two_collections, tmp_path, capsys):
    """A ledger without a collection digest (older ledgers, other tools' reviews) takes the one --collection given,
    as before; among several, which one it belongs to cannot be told, and it is refused."""
    demo, small, runs = two_collections["demo"], two_collections["small"], two_collections["runs"]
    lines = (runs / "small" / "ledgers" / "T1.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    del header["inputs"]["collection"]
    anonymous = tmp_path / "anonymous" / "T1.jsonl"
    anonymous.parent.mkdir()
    anonymous.write_text(json.dumps(header) + "\n" + ledger_factory.older_ledger_body(lines[1:]), encoding="utf-8")
    rows = _stop_rows(capsys, anonymous, "--collection", small)
    recorded = _stop_rows(capsys, runs / "small", "--collection", small)
    assert [{**row, "ledger": None} for row in rows] == [{**row, "ledger": None} for row in recorded]
    err = _refused(capsys, "stop", anonymous, *TARGET_RULES, "--collection", demo, "--collection", small)
    assert f"{anonymous}: records no collection digest, so which --collection it was reviewed on cannot be told" in err
    err = _refused(capsys, "stop", anonymous, *TARGET_RULES, "--collection", demo)  # its docids are not the demo's
    assert f"{anonymous}: " in err and "of its docids are not in" in err
    odd = tmp_path / "odd" / "small.jsonl"  # a digest that is not a string: refused in one line, not a traceback
    odd.parent.mkdir()
    odd.write_text(
        json.dumps({**header, "inputs": {"collection": ["x"]}}) + "\n" + ledger_factory.older_ledger_body(lines[1:]),
        "utf-8",
    )
    err = _refused(capsys, "stop", odd, *TARGET_RULES, "--collection", demo, "--collection", small)
    assert f"{odd}: was reviewed on none of the given collections" in err


def test_collections_of_the_same_documents_are_told_apart_by_the_ledgers_qrels(two_collections, tmp_path, capsys):
    """Two --collection of the same documents with other qrels: each ledger is replayed with the one whose qrels of
    its topic it records (target:T with other qrels would draw other targets without a word); a ledger whose qrels
    are neither's, or that records no qrels digest, is refused in one line."""
    from tarsim.data import read_qrels

    small, runs = two_collections["small"], two_collections["runs"]
    twin = tmp_path / "twin"
    twin.mkdir()
    for name in ("docs.jsonl", "topics.tsv"):
        (twin / name).write_bytes((small / name).read_bytes())
    qrels = read_qrels(small / "qrels.txt")
    write_qrels(twin / "qrels.txt", {"T1": {**qrels["T1"], "s1": 1}})
    alone = _stop_rows(capsys, runs / "small", "--collection", small)
    assert _stop_rows(capsys, runs / "small", "--collection", twin, "--collection", small) == alone
    twin_runs = tmp_path / "twin-runs"
    args = ["--collection", str(twin), "--topic", "T1", "--max-effort", "60", "--effort", "judge"]
    assert main(["simulate", *args, "--out", str(twin_runs)]) == 0
    capsys.readouterr()
    twin_alone = _stop_rows(capsys, twin_runs, "--collection", twin)
    both = _stop_rows(capsys, twin_runs, runs / "small", "--collection", small, "--collection", twin)
    assert both == twin_alone + alone or both == alone + twin_alone
    err = _refused(capsys, "stop", twin_runs, *TARGET_RULES, "--collection", small)
    assert "with other qrels for topic 'T1'" in err and str(small) in err
    (ledger,) = (runs / "small" / "ledgers").glob("*.jsonl")
    header, *rest = ledger.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(header)
    del record["inputs"]["qrels"]  # an older ledger: its documents are known, its judgments are not
    older = tmp_path / "older" / "T1.jsonl"
    older.parent.mkdir()
    older.write_text(json.dumps(record) + "\n" + ledger_factory.older_ledger_body(rest), "utf-8")
    assert _stop_rows(capsys, older, "--collection", small) == [dict(row, ledger=str(older)) for row in alone]
    err = _refused(capsys, "stop", older, *TARGET_RULES, "--collection", small, "--collection", twin)
    assert "records no qrels digest" in err


def test_each_collection_is_loaded_once(two_collections, monkeypatch):
    import tarsim.stopping.replay_inputs
    from tarsim.reporting.compare import load_ledgers
    from tarsim.stopping.replay_inputs import replay_inputs

    loaded = []
    load = tarsim.stopping.replay_inputs.load_dataset
    monkeypatch.setattr(
        tarsim.stopping.replay_inputs, "load_dataset", lambda path, **kw: loaded.append(path) or load(path, **kw)
    )
    demo, small, runs = (str(two_collections[name]) for name in ("demo", "small", "runs"))
    ledgers = load_ledgers([runs])
    replay = replay_inputs([demo, small, f"{small}/.", Path(demo)], ledgers)  # the same folder twice: loaded once
    assert loaded == [demo, small]
    own = [ledger for ledger in ledgers if "small" in ledger.source]
    assert replay_inputs(Path(small), own)(own[0])["docids"] == replay(own[0])["docids"]  # one Path
    assert len(ledgers) == 2 and all(set(ledger.docids) <= set(replay(ledger)["docids"]) for ledger in ledgers)


def test_rules_that_need_no_collection_need_no_collection_option(two_collections, capsys):
    runs = two_collections["runs"]
    assert main(["stop", str(runs), "--rule", "nonrel:10", "--rule", "oracle", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 4
    err = _refused(capsys, "stop", runs, *TARGET_RULES)
    assert "needs the collection's docids and the qrels" in err


def _stop_points(figure) -> set[tuple[float, float]]:
    return {
        (float(x), float(y))
        for ax in figure.axes
        for line in ax.get_lines()
        if line.get_gid() == "stop"
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
    }


@pytest.mark.slow
def test_plot_marks_target_stops_of_ledgers_of_several_collections(two_collections, tmp_path, capsys):
    """Per topic, each panel's target:T stop is the one its ledger's own collection gives (replayed alone, with
    replay_inputs of that collection or a plain docids/qrels dict, as Python callers pass it)."""
    from tarsim.datasets import load_dataset
    from tarsim.reporting.compare import load_ledgers
    from tarsim.reporting.plots import plot_recall_effort
    from tarsim.stopping.replay_inputs import replay_inputs

    demo, small, runs = two_collections["demo"], two_collections["small"], two_collections["runs"]
    out = tmp_path / "f.png"
    args = ["--stopping", "target:2", "--per-topic", "--collection", str(demo), "--collection", str(small)]
    assert main(["plot", str(runs), "--out", str(out), *args]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    ledgers = load_ledgers([runs])
    both = replay_inputs([str(demo), str(small)], ledgers)
    together = _stop_points(plot_recall_effort(ledgers, per_topic=True, stopping=["target:2"], replay=both))
    alone, plain = set(), set()
    for name, collection in (("demo", demo), ("small", small)):
        own = load_ledgers([runs / name])
        figure = plot_recall_effort(own, stopping=["target:2"], replay=replay_inputs(str(collection), own))
        alone |= _stop_points(figure)
        dataset = load_dataset(collection)
        replay = {"docids": dataset.collection.docids, "qrels": dataset.qrels}
        plain |= _stop_points(plot_recall_effort(own, stopping=["target:2"], replay=replay))
    assert len(together) == 2 and together == alone == plain


def test_a_screening_file_with_unlabelled_records_replays_the_review_that_left_them_out(tmp_path, capsys):
    source = tmp_path / "unl.csv"
    _screening_csv(source, [1, 0, "", 0, 1, 0, 0, 1, "", 0] * 3)
    out = tmp_path / "out"
    assert main(["simulate", "--collection", str(source), "--unlabelled", "skip", "--out", str(out)]) == 0
    capsys.readouterr()
    rows = _stop_rows(capsys, out / "ledgers", "--collection", source)
    assert rows and all(row["rule"].startswith("target:") for row in rows)


# ---- target:T on ledgers of the built-in demo, with no folder to give as --collection ------------------------------


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    """Ledgers of a short review of the built-in demo (`tarsim simulate` without --collection), topics T1 and T2."""
    out = tmp_path_factory.mktemp("demo-runs") / "out"
    args = ["--topic", "T1", "--topic", "T2", "--max-effort", "R+40", "--effort", "judge"]
    assert main(["simulate", *args, "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_stop_replays_target_on_demo_ledgers_without_a_collection(demo_runs, two_collections, capsys):
    """`tarsim stop OUT --rule target:T` on the demo's ledgers needs no --collection: the rows are those the demo
    written to a folder and given as --collection gives; beside another --collection the demo is still served."""
    capsys.readouterr()
    without = _stop_rows(capsys, demo_runs)
    assert len(without) == 4 and all(row["stopped"] for row in without)
    assert without == _stop_rows(capsys, demo_runs, "--collection", two_collections["demo"])  # the exported demo
    assert without == _stop_rows(capsys, demo_runs, "--collection", two_collections["small"])  # beside another
    runs, small = two_collections["runs"], two_collections["small"]
    mixed = _stop_rows(capsys, runs, "--collection", small)  # the demo ledger: the demo; the small one: its own
    assert len(mixed) == 4 and mixed == _stop_rows(
        capsys, runs, "--collection", small, "--collection", runs.parent / "demo"
    )
    err = _refused(capsys, "stop", runs / "small", *TARGET_RULES)  # not the demo's: give --collection, as before
    assert "needs the collection's docids and the qrels" in err and "--collection" in err


def _demo_twin(exported: Path, tmp_path: Path, edit) -> Path:
    """A copy of the exported demo collection (the same documents, so the same collection digest) with its qrels
    edited by `edit`."""
    from tarsim.data import read_qrels

    twin = tmp_path / "twin"
    twin.mkdir()
    for path in exported.iterdir():
        if path.name != "qrels.txt":
            (twin / path.name).write_bytes(path.read_bytes())
    write_qrels(twin / "qrels.txt", edit(read_qrels(exported / "qrels.txt")))
    return twin


def test_a_given_collection_of_the_demos_documents_with_other_qrels_leaves_the_demo_ledgers_to_the_demo(
    demo, demo_runs, two_collections, tmp_path, capsys
):
    """A --collection of the demo's documents with other qrels (every T1 document relevant) is not what the demo's
    ledgers were reviewed on (their qrels digest says so): the built-in demo replays them, as without it."""
    twin = _demo_twin(
        two_collections["demo"], tmp_path, lambda qrels: {**qrels, "T1": dict.fromkeys(demo.collection.docids, 1)}
    )
    capsys.readouterr()
    rows = _stop_rows(capsys, demo_runs / "ledgers" / "T1.jsonl", "--collection", twin)
    assert rows == _stop_rows(capsys, demo_runs / "ledgers" / "T1.jsonl")
    assert [row["sample_size"] for row in rows] != [2, 4]  # the twin's qrels would make every draw a target


@pytest.mark.slow
def test_a_ledger_of_the_demos_documents_with_other_qrels_is_not_replayed_with_the_demos(
    demo, two_collections, tmp_path, capsys
):
    """Reviewed on a copy of the demo with edited qrels, a ledger records the demo's collection digest but another
    qrels digest: without --collection it must ask for its collection, not be replayed with the demo's qrels."""
    first = demo.collection.docids[0]
    twin = _demo_twin(two_collections["demo"], tmp_path, lambda qrels: {**qrels, "T1": {**qrels["T1"], first: 1}})
    runs = tmp_path / "twin-runs"
    simulate = ["simulate", "--collection", str(twin), "--topic", "T1", "--max-effort", "R+40", "--out", str(runs)]
    assert main(simulate) == 0
    capsys.readouterr()
    err = _refused(capsys, "stop", runs, *TARGET_RULES)
    assert "needs the collection's docids and the qrels" in err


@pytest.mark.slow
def test_plot_marks_target_stops_on_demo_ledgers_without_a_collection(demo_runs, two_collections, tmp_path, capsys):
    out = tmp_path / "f.png"
    for layout in ([], ["--per-topic"]):
        assert main(["plot", str(demo_runs), "--out", str(out), "--stopping", "target:10", *layout]) == 0
        assert out.read_bytes()[:4] == b"\x89PNG"
        out.unlink()
    small = tmp_path / "small.png"
    err = _refused(capsys, "plot", two_collections["runs"] / "small", "--out", small, "--stopping", "target:2")
    assert "needs the collection's docids and the qrels" in err and not small.exists()


def test_replay_inputs_serve_the_demo_built_once_and_only_when_a_ledger_records_a_digest(demo, demo_runs, monkeypatch):
    """replay_inputs(None, ...) gives a demo ledger the demo's docids and qrels and another ledger none; the demo
    is built once for all ledgers, not at all for ledgers that record no digest, and its digest is stable."""
    import ledger_factory
    import tarsim.datasets.synthetic
    from tarsim.data.digests import collection_digest
    from tarsim.reporting.compare import load_ledgers
    from tarsim.stopping import replay_inputs as module

    assert collection_digest(demo.collection) == collection_digest(tarsim.datasets.synthetic.demo_dataset().collection)
    built = []
    build = tarsim.datasets.synthetic.demo_dataset
    monkeypatch.setattr(tarsim.datasets.synthetic, "demo_dataset", lambda: built.append(1) or build())
    module._demo_replay.cache_clear()
    try:
        anonymous = ledger_factory.make_ledger([1, 0], topic="T1")  # records no collection digest
        assert module.replay_inputs(None, [anonymous])(anonymous) == {} and built == []
        smaller = ledger_factory.make_ledger([1, 0], topic="T1", inputs={"collection": "0" * 64})  # 1,000 documents
        assert module.replay_inputs(None, [smaller])(smaller) == {} and built == []  # not the demo's size: no build
        ledgers = load_ledgers([demo_runs])
        replay = module.replay_inputs(None, ledgers)
        assert len(ledgers) == 2 and built == []  # built on first need, not before
        for ledger in ledgers:
            assert replay(ledger) == {"docids": demo.collection.docids, "qrels": demo.qrels}
        other = ledger_factory.make_ledger([1, 0], topic="T1", size=2000, inputs={"collection": "0" * 64})
        assert replay(other) == {} and len(built) == 1  # the demo's size, another digest: not the demo
        edited = dict(ledgers[0].header["inputs"], qrels="f" * 64)  # the demo's documents, edited qrels
        twin = ledger_factory.make_ledger([1, 0], topic=ledgers[0].topic, size=2000, inputs=edited)
        assert replay(twin) == {} and len(built) == 1
    finally:
        module._demo_replay.cache_clear()


# ---- what `tarsim stop` says: how a target sample was costed, counts as counts, which ledger; sweep outputs ----------


@pytest.fixture(scope="module")
def demo_t1(tmp_path_factory):
    """The demo's topic T1 reviewed to its last relevant document: 51 judgments, every one of them relevant."""
    out = tmp_path_factory.mktemp("demo-t1") / "out"
    assert main(["simulate", "--topic", "T1", "--effort", "judge", "--out", str(out)]) == 0
    return out


def test_stop_says_how_a_target_sample_was_costed(demo_t1, demo_runs, capsys):
    """A ledger with no non-relevant judgment costs the target sample's non-relevant documents at its relevant
    mean: the sample_cost column says so in every format, and the text table adds one note line on how to get
    exact costs; an estimate from judgments of the same relevance gets no note."""
    capsys.readouterr()
    rules = ["--rule", "target:10", "--rule", "knee"]
    assert main(["stop", str(demo_t1), *rules, "--format", "json"]) == 0
    target, knee = json.loads(capsys.readouterr().out)
    assert target["sample_cost"] == "estimated from the other relevance" and knee["sample_cost"] is None
    assert main(["stop", str(demo_t1), *rules, "--format", "csv"]) == 0
    csv = capsys.readouterr().out
    assert {"sample_cost", "cost_judge"} <= set(csv.splitlines()[0].split(",")) and "note" not in csv
    assert main(["stop", str(demo_t1), *rules, "--runs"]) == 0
    lines = _run_lines(capsys.readouterr().out)
    assert len(lines) == 4 and "sample_cost" in lines[0] and "estimated from the other relevance" in lines[1]
    assert lines[3].startswith("note: sample_cost 'estimated from the other relevance'") and "sample_costs" in lines[3]
    # counts print as counts beside a row without a sample (n/a): 594, not 594.000; judgments too
    size, judged = target["sample_size"], target["effort_judge"]
    assert type(size) is int and type(judged) is int  # counts, not 594.0, beside a rule with no sample (null)
    assert f",{size}," in csv.splitlines()[1] and f"{size}.0" not in csv
    assert f" {size} " in lines[1] and f"{size}.000" not in lines[1]
    assert f" {judged} " in lines[1] and f"{judged}.000" not in lines[1]
    assert "n/a" in lines[2] and f"{target['recall']:.3f}" in lines[1]  # fractions keep their decimals
    t2 = demo_runs / "ledgers" / "T2.jsonl"  # non-relevant documents judged too: estimated from the same relevance
    assert main(["stop", str(t2), "--rule", "target:10", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["sample_cost"] == "estimated"
    assert main(["stop", str(t2), "--rule", "target:10", "--runs"]) == 0
    text = capsys.readouterr().out
    assert "estimated" in text and "note:" not in text and len(_run_lines(text)) == 2


def test_a_target_refusal_names_the_ledger(two_collections, tmp_path, capsys):
    small = two_collections["runs"] / "small"
    prefix = f"tarsim: error: {small / 'ledgers' / 'T1.jsonl'}: stopping rule 'target:2' needs the collection's"
    assert _refused(capsys, "stop", small, *TARGET_RULES).startswith(prefix)
    plot = ["plot", small, "--out", tmp_path / "f.png", "--stopping", "target:2"]
    assert _refused(capsys, *plot).startswith(prefix)


@pytest.fixture(scope="module")
def demo_sweep(tmp_path_factory):
    """A sweep's output: the demo's T1 under one policy, seeds 0 and 1, with [sweep] stopping rules."""
    base = tmp_path_factory.mktemp("demo-sweep")
    config = base / "study.toml"
    config.write_text(
        '[sweep]\nout = "out"\nseeds = 2\npolicies = ["relevance"]\nstopping = ["knee", "target:10"]\n\n'
        '[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\nmax_effort = "R"\n',
        encoding="utf-8",
    )
    assert main(["sweep", str(config)]) == 0
    return base / "out"


@pytest.mark.slow
def test_report_refuses_a_sweep_output_and_names_what_reads_it(demo_sweep, tmp_path, capsys):
    """Not `...seed1.jsonl: written with another configuration than ...seed0.jsonl`; also before the sweep wrote
    its results table (ledgers only)."""
    capsys.readouterr()
    err = _refused(capsys, "report", demo_sweep)
    assert err.startswith(f"tarsim: error: {demo_sweep}: is a `tarsim sweep` output")
    assert "results.csv" in err and f"tarsim compare {demo_sweep}" in err and f"tarsim stop {demo_sweep}" in err
    ledgers_only = tmp_path / "ledgers-only"
    (ledgers_only / "ledgers").mkdir(parents=True)
    for path in (demo_sweep / "ledgers").iterdir():
        (ledgers_only / "ledgers" / path.name).write_bytes(path.read_bytes())
    assert "is a `tarsim sweep` output" in _refused(capsys, "report", ledgers_only)


def test_stop_without_rules_on_sweep_ledgers_says_they_record_none(demo_sweep, capsys):
    capsys.readouterr()
    err = _refused(capsys, "stop", demo_sweep)
    assert "sweep ledgers do not record the [sweep] stopping rules" in err and "give the rules with --rule" in err
    assert main(["stop", str(demo_sweep), "--rule", "knee", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


@pytest.mark.slow
def test_stop_without_rules_says_which_ledgers_it_left_out(demo_sweep, tmp_path, capsys):
    """A folder of ledgers that record rules beside a sweep's, which record none: the first are replayed, and one
    warning says how many were left out and why, instead of a table that silently lacks them."""
    import shutil

    mixed = tmp_path / "mixed"
    shutil.copytree(demo_sweep / "ledgers", mixed / "sweep")
    recorded = mixed / "simulate"
    assert main(["simulate", "--topic", "T1", "--max-effort", "R+40", "--stop", "knee", "--out", str(recorded)]) == 0
    capsys.readouterr()
    assert main(["stop", str(mixed), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert [row["rule"] for row in json.loads(captured.out)] == ["knee"]
    assert captured.err.count("\n") == 1 and "tarsim: warning: 2 of 3 ledgers record no stopping rule" in captured.err
    assert "sweep ledgers do not record [sweep] stopping" in captured.err and "--rule" in captured.err
    assert main(["stop", str(recorded), "--format", "json"]) == 0
    assert capsys.readouterr().err == ""  # every ledger records its rules: nothing to say


def test_sentences_read_print_as_a_count(demo_t1, capsys):
    """effort_sent is a count of sentences: 176, not 176.000, when every row's is whole (a trial's finding)."""
    capsys.readouterr()
    assert main(["stop", str(demo_t1), "--rule", "knee", "--rule", "budget:R:sent", "--format", "json"]) == 0
    sentences = [row["effort_sent"] for row in json.loads(capsys.readouterr().out)]
    assert all(float(value).is_integer() for value in sentences)
    assert main(["stop", str(demo_t1), "--rule", "knee", "--rule", "budget:R:sent", "--runs"]) == 0
    lines = _run_lines(capsys.readouterr().out)
    column = lines[0].split().index("effort_sent")
    assert [line.split()[column] for line in lines[1:3]] == [f"{value:.0f}" for value in sentences]


def test_stop_prints_effort_sums_as_the_ledger_adds_them_up_not_float_noise(tmp_path, capsys):
    """Three judgments of 0.1 s: the effort at the stop is 0.3 s in CSV and JSON (rounded as tarsim rounds times),
    not the float sum 0.30000000000000004 (the trial's 1650.8759999999997); counts stay counts."""
    path = tmp_path / "ledgers" / "t.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(ledger_factory.ledger_lines([0, 0, 1], seconds_per_sentence=0.1)) + "\n")
    rule = ["--rule", "oracle", "--effort", "seconds", "--effort", "judge"]
    assert main(["stop", str(path), *rule, "--format", "csv"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    values = dict(zip(header.split(","), row.split(","), strict=True))
    assert (values["effort_seconds"], values["effort_judge"], values["cost_seconds"]) == ("0.3", "3", "0.3")
    assert main(["stop", str(path), *rule, "--format", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["effort_seconds"] == record["cost_seconds"] == 0.3 and record["effort_judge"] == 3
