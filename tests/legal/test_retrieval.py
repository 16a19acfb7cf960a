"""BM25 retrieval: bm25s scores, trec_eval-ordered cuts, date filter, analyzers, k1/b tuning, `tarsim retrieve`."""

from __future__ import annotations

import math

import bm25s
import numpy as np
import pytest
import pytrec_eval

from tarsim.cli import main
from tarsim.data import Collection, read_run, write_collection, write_qrels, write_topics
from tarsim.data.collection import Document
from tarsim.errors import ConfigError
from tarsim.legal.benchmark import Benchmark, save_benchmark
from tarsim.retrieval import RAW, Analyzer, DateFilter, PreparedCorpus, get_analyzer, search, top_documents, tune_bm25

DOCS = {
    "d01": "the cat sat on the mat",
    "d02": "a cat and a dog",
    "d03": "dogs chase cats",
    "d04": "the mat is red",
    "d05": "cat cat cat",
    "d06": "nothing relevant here",
    "d07": "cat",
    "d08": "cat",
    "d09": "cat",
    "d10": "mat cat dog",
}


def corpus(analyzer: Analyzer = RAW) -> PreparedCorpus:
    return PreparedCorpus(list(DOCS), list(DOCS.values()), analyzer)


def test_scores_are_bm25s_scores() -> None:
    prepared = corpus()
    run = search(prepared, {"q": "cat mat"}, k1=1.2, b=0.75, depth=100)
    model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    model.index(bm25s.tokenize(list(DOCS.values()), stopwords=None, show_progress=False), show_progress=False)
    direct = model.get_scores(["cat", "mat"])
    for docid, score in run["q"].items():
        assert score == pytest.approx(float(direct[list(DOCS).index(docid)]), rel=1e-6)
    # documents with no query term are not returned
    assert "d06" not in run["q"]
    assert set(run["q"]) == {d for d, text in DOCS.items() if {"cat", "mat"} & set(text.split())}


def test_cut_is_prefix_of_trec_eval_order() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, size=200).astype(np.float32)  # many ties, some zeros
    docids = [f"x{i:03d}" for i in range(200)]
    order = sorted(range(200), key=docids.__getitem__, reverse=True)
    tie_rank = np.empty(200, dtype=np.int64)
    tie_rank[np.array(order)] = np.arange(200)
    full = sorted((i for i in range(200) if scores[i] > 0), key=lambda i: (scores[i], docids[i]), reverse=True)
    for depth in (1, 5, 37, 100, 199):
        chosen = top_documents(scores, None, depth, tie_rank)
        assert sorted(chosen.tolist()) == sorted(full[:depth])


def test_date_filter_directions() -> None:
    dates = np.array([1.0, 2.0, 3.0, math.nan])
    assert DateFilter("not_after").allowed(dates, 2.0).tolist() == [True, True, False, True]
    assert DateFilter("not_after", strict=True).allowed(dates, 2.0).tolist() == [True, False, False, True]
    assert DateFilter("not_before").allowed(dates, 2.0).tolist() == [False, True, True, True]
    assert DateFilter("not_before", strict=True).allowed(dates, 2.0).tolist() == [False, False, True, True]
    assert DateFilter("not_after").allowed(dates, math.nan).all()
    with pytest.raises(ConfigError):
        DateFilter("sideways")


def test_search_applies_date_filter_and_excludes_self() -> None:
    prepared = corpus()
    doc_dates = {d: float(i) for i, d in enumerate(DOCS)}
    run = search(
        prepared,
        {"d05": "cat"},
        k1=1.2,
        b=0.75,
        date_filter=DateFilter("not_after", strict=True),
        doc_dates=doc_dates,
        query_dates={"d05": doc_dates["d05"]},
    )
    assert run["d05"] and all(doc_dates[d] < doc_dates["d05"] for d in run["d05"])
    unfiltered = search(prepared, {"d05": "cat"}, k1=1.2, b=0.75)
    assert "d05" not in unfiltered["d05"] and "d07" in unfiltered["d05"]
    kept = search(prepared, {"d05": "cat"}, k1=1.2, b=0.75, exclude_self=False)
    assert "d05" in kept["d05"]


def test_analyzers_remove_stop_words_digits_and_low_idf_terms() -> None:
    french = get_analyzer("french").tokenize(["Les contrats de bail sont résiliés en 2020."])[0]
    assert "les" not in french and "de" not in french and "2020" not in french
    assert "contrat" in french  # stemmed
    dutch = get_analyzer("dutch").tokenize(["De huurovereenkomsten worden beëindigd"])[0]
    assert "de" not in dutch and "huurovereenkomst" in dutch
    english = get_analyzer("english").tokenize(["The 3 companies, acquiring shares!"])[0]
    assert english == ["compani", "acquir", "share"]
    pruning = Analyzer(max_df=0.5)
    prepared = PreparedCorpus(list(DOCS), list(DOCS.values()), pruning)
    assert "cat" in prepared.pruned  # in 8 of 10 documents
    assert prepared.query_term_ids(["cat"]) == [[]]
    with pytest.raises(ConfigError):
        Analyzer(stopwords="klingon")


def pytrec_value(qrels, run, measure: str, key: str) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    return {t: v[key] for t, v in evaluator.evaluate(run).items()}


def test_tuning_picks_the_pytrec_eval_best_grid_point() -> None:
    prepared = corpus()
    queries = {"q1": "cat mat", "q2": "dog", "q3": "red mat"}
    qrels = {"q1": {"d01": 1, "d10": 1}, "q2": {"d02": 1, "d03": 1}, "q3": {"d04": 1}}
    k1_grid, b_grid = (0.2, 1.2, 3.0), (0.0, 0.5, 1.0)
    result = tune_bm25(prepared, queries, qrels, "nDCG@3", k1_grid=k1_grid, b_grid=b_grid, depth=10)
    expected = []
    for k1 in k1_grid:
        for b in b_grid:
            run = search(prepared, queries, k1=k1, b=b, depth=10)
            values = pytrec_value(qrels, run, "ndcg_cut.3", "ndcg_cut_3")
            expected.append((k1, b, sum(values.get(t, 0.0) for t in qrels) / len(qrels)))
    for (k1, b, score), (ek1, eb, escore) in zip(result.grid, expected, strict=True):
        assert (k1, b) == (ek1, eb) and score == pytest.approx(escore, abs=1e-9)
    best = max(expected, key=lambda row: row[2])
    assert result.score == pytest.approx(best[2], abs=1e-9)


def make_benchmark_dir(tmp_path):
    docs = Collection([Document(docid=d, text=t) for d, t in DOCS.items()])
    topics = {"q1": "cat mat", "q2": "dog", "q3": "red mat", "q4": "cats and dogs"}
    qrels = {"q1": {"d01": 1, "d10": 1}, "q2": {"d02": 1, "d03": 1}, "q3": {"d04": 1}, "q4": {"d03": 1}}
    bench = Benchmark(
        name="toy",
        preset="default",
        collection=docs,
        topics=topics,
        qrels=qrels,
        splits={"dev": ["q1", "q2", "q3"], "test": ["q4"]},
    )
    return save_benchmark(bench, tmp_path / "toy")


def test_cli_retrieve_writes_deterministic_run_and_tunes(tmp_path, capsys) -> None:
    directory = make_benchmark_dir(tmp_path)
    out1, out2 = tmp_path / "a.run", tmp_path / "b.run"
    for out in (out1, out2):
        command = ["retrieve", str(directory), "--out", str(out), "--tune", "R@2"]
        assert main([*command, "--k1-grid", "0.5,1.2", "--b-grid", "0.3,0.75"]) == 0
        assert "tuned on dev (3 queries)" in capsys.readouterr().err
    assert out1.read_bytes() == out2.read_bytes()
    run = read_run(out1)
    assert set(run) == {"q4"}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_cli_retrieve_plain_collection_directory(tmp_path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    write_collection(folder / "docs.jsonl", [Document(docid=d, text=t) for d, t in DOCS.items()])
    write_topics(folder / "topics.tsv", {"t1": "red mat"})
    write_qrels(folder / "qrels.txt", {"t1": {"d04": 1}})
    out = tmp_path / "plain.run"
    assert main(["retrieve", str(folder), "--out", str(out), "--depth", "2"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and lines[0].split()[2] == "d04"


def test_cli_retrieve_bad_input_exits_2(tmp_path, capsys) -> None:
    directory = make_benchmark_dir(tmp_path)
    (directory / "qrels.txt").write_text("q1 0 d99 1\n")
    assert main(["retrieve", str(directory), "--out", str(tmp_path / "x.run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "qrels.txt" in err[0] and "d99" in err[0] and "absent from the corpus" in err[0]
    assert not (tmp_path / "x.run").exists()
    assert main(["retrieve", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.run")]) == 2
    assert (
        main(
            [
                "retrieve",
                str(make_benchmark_dir(tmp_path / "2")),
                "--out",
                str(tmp_path / "x.run"),
                "--tune",
                "R@banana",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("tarsim: error:") for line in err)
