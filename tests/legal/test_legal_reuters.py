"""The Reuters-21578 doc2doc benchmark: its definition, splits, and `tarsim bench reuters-doc2doc` end to end
on a slice of the real collection, every figure of the table cross-checked with pytrec_eval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval

from tarsim.cli import main
from tarsim.data import Collection, Dataset, read_run
from tarsim.datasets import load_dataset
from tarsim.legal import build_reuters_doc2doc, load_benchmark, save_benchmark
from tarsim.legal.reuters import story_number

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
REUTERS = DATASETS / "reuters21578"
pytestmark = pytest.mark.skipif(not REUTERS.is_dir(), reason=f"real data not present at {REUTERS}")

PYTREC = {
    "R@100": ("recall.100", "recall_100"),
    "R@20": ("recall.20", "recall_20"),
    "nDCG@20": ("ndcg_cut.20", "ndcg_cut_20"),
    "RPrec": ("Rprec", "Rprec"),
}


@pytest.fixture(scope="module")
def reuters() -> Dataset:
    return load_dataset(REUTERS)


@pytest.fixture(scope="module")
def sliced(reuters) -> Dataset:
    """The first 3,000 stories with their categories: small enough for a quick end-to-end run."""
    keep = [doc for doc in reuters.collection if story_number(doc.docid) <= 3000]
    kept = {doc.docid for doc in keep}
    qrels = {c: {d: g for d, g in j.items() if d in kept} for c, j in reuters.qrels.items()}
    return Dataset(collection=Collection(keep), qrels={c: j for c, j in qrels.items() if j}, topics=reuters.topics)


def test_definition_on_the_full_collection(reuters) -> None:
    bench = build_reuters_doc2doc(reuters, seed=0)
    categories: dict[str, set[str]] = {}
    size: dict[str, int] = {}
    for category, judged in reuters.qrels.items():
        size[category] = sum(1 for g in judged.values() if g > 0)
        for docid, grade in judged.items():
            if grade > 0:
                categories.setdefault(docid, set()).add(category)
    assert {len(bench.splits["dev"]), len(bench.splits["test"])} == {300}
    parts = [set(v) for v in bench.splits.values()]
    assert sum(map(len, parts)) == len(set().union(*parts)) == len(bench.topics)
    for topic in bench.splits["test"]:
        rarest = min(categories[topic], key=lambda c: (size[c], c))
        expected = {d for d, g in reuters.qrels[rarest].items() if g > 0 and story_number(d) < story_number(topic)}
        assert set(bench.qrels[topic]) == expected and expected
        assert size[rarest] <= 100
        story = reuters.collection.get(topic)
        assert bench.topics[topic] == f"{story.title}\n{story.text}".strip()
    again = build_reuters_doc2doc(reuters, seed=0)
    other = build_reuters_doc2doc(reuters, seed=1)
    assert again.splits == bench.splits and other.splits["test"] != bench.splits["test"]


@pytest.mark.slow
def test_bench_end_to_end_matches_pytrec_eval(sliced, tmp_path, capsys) -> None:
    bench = build_reuters_doc2doc(sliced, seed=0, n_dev=40, n_test=40)
    directory = save_benchmark(bench, tmp_path / "reuters-doc2doc")
    assert load_benchmark(directory).qrels == bench.qrels
    out = tmp_path / "bench.json"
    args = [
        "bench",
        "reuters-doc2doc",
        "--data",
        str(directory),
        "--k1-grid",
        "0.6,2.0",
        "--b-grid",
        "0.5,0.9",
        "--max-queries",
        "25",
        "--json",
        str(out),
        "--runs",
        str(tmp_path / "runs"),
    ]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "R@100" in table and "R@20" in table and "nDCG@20" in table and "RPrec" in table
    assert "keeps" in table  # the query shortening by preprocessing is reported
    rows = json.loads(out.read_text())["reuters-doc2doc"]
    labels = [row["label"] for row in rows]
    assert labels[0].startswith("raw text, k1/b default") and "tuned" in labels[3]
    assert (rows[0]["k1"], rows[0]["b"]) == (1.2, 0.75)
    assert rows[3]["k1"] in (0.6, 2.0) and rows[3]["b"] in (0.5, 0.9)
    for index, row in enumerate(rows):
        run = read_run(tmp_path / "runs" / f"reuters-doc2doc.{index}.run")
        topics = sorted(run)
        assert len(topics) == 25
        judged = {t: bench.qrels[t] for t in topics}
        for name, value in row["summary"].items():
            spec, key = PYTREC[name]
            results = pytrec_eval.RelevanceEvaluator(judged, {spec}).evaluate(run)
            assert value == pytest.approx(sum(results[t][key] for t in topics) / len(topics), abs=1e-9)
        if "no date filter" not in row["label"]:
            for topic, ranked in run.items():
                assert all(story_number(d) < story_number(topic) for d in ranked)
    # the same command twice gives byte-identical runs
    assert main([*args[:-4], "--json", str(tmp_path / "again.json"), "--runs", str(tmp_path / "again")]) == 0
    for index in range(len(rows)):
        name = f"reuters-doc2doc.{index}.run"
        assert (tmp_path / "runs" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
