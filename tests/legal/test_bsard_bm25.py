"""BSARD's official BM25 (the `bsard` variant) and `tarsim bench bbsard`'s published table; scores by hand."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.legal import load_bbsard
from tarsim.retrieval import get_analyzer
from tarsim.retrieval.bsard import BsardBM25, substring_document_frequency

DOCS = ["le bail bail", "le contrat", "bailleur", "autre chose", "rien"]
LENGTHS = [3, 2, 1, 2, 1]  # whitespace tokens; average 9 / 5 = 1.8


def model() -> BsardBM25:
    return BsardBM25(["1", "2", "3", "4", "5"], DOCS, get_analyzer("raw"), k1=1.0, b=0.6)


def bm25_part(tf: int, length: int) -> float:
    return tf * 2.0 / (tf + 1.0 * (1 - 0.6 + 0.6 * length / 1.8))


def test_document_frequency_counts_substrings():
    joined = "\0".join(DOCS)
    starts = [0]
    for doc in DOCS:
        starts.append(starts[-1] + len(doc) + 1)
    import numpy as np

    assert substring_document_frequency("bail", joined, np.array(starts)) == 2  # "bailleur" counts, once each
    assert substring_document_frequency("le", joined, np.array(starts)) == 3  # le, le, bailLEur
    assert substring_document_frequency("zzz", joined, np.array(starts)) == 0


def test_scores_and_order_by_hand():
    bm25 = model()
    idf = math.log10((5 - 2 + 0.5) / (2 + 0.5))  # df("bail") = 2 by substring (a token count would give 1)
    scores = bm25.scores("bail")
    assert scores[0] == pytest.approx(idf * bm25_part(2, 3))
    assert list(scores[1:]) == [0.0, 0.0, 0.0, 0.0]  # "bailleur" has no token "bail": tf 0
    assert bm25.scores("bail bail")[0] == pytest.approx(2 * scores[0])  # each query occurrence counts
    run = bm25.search({"q": "bail"}, depth=3)
    assert list(run["q"]) == ["1", "2", "3"]  # every one of the top 3 listed, ties at 0 in corpus order


def test_negative_idf_ranks_below_zero():
    idf = math.log10((5 - 3 + 0.5) / (3 + 0.5))  # "le" is in 3 of 5 articles by substring: negative
    run = model().search({"q": "le"}, depth=5)
    assert list(run["q"]) == ["3", "4", "5", "1", "2"]
    assert run["q"]["1"] == pytest.approx(idf * bm25_part(1, 3))
    assert run["q"]["2"] == pytest.approx(idf * bm25_part(1, 2))


def write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])


def bbsard_without_ids(folder: Path) -> Path:
    articles = ["Le bail de résidence principale.", "Le locataire résilie le bail.", "Le contrat de travail."]
    for language in ("fr", "nl"):
        write(folder / language / "corpus.csv", ["article", "reference"], [[a, "Art."] for a in articles])
        header = ["id", "question", "category", "subcategory", "extra_description", "article_ids"]
        write(folder / language / "train.csv", header, [["1", "Le bail ?", "", "", "", "1"]])
        questions = [["2", "Résilier le bail ?", "", "", "", "2"], ["3", "Un contrat de travail ?", "", "", "", "3,1"]]
        write(folder / language / "test.csv", header, questions)
    return folder


def test_corpus_without_id_column_is_numbered_from_one(tmp_path):
    bench = load_bbsard(bbsard_without_ids(tmp_path / "b"), "fr")
    assert bench.collection.docids == ["1", "2", "3"]
    assert bench.collection[1].text == "Le locataire résilie le bail."


def test_bench_bbsard_prints_the_official_measures_in_percent(tmp_path, capsys):
    folder = bbsard_without_ids(tmp_path / "b")
    assert main(["bench", "bbsard", "--data", str(folder), "--runs", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(out) if line.startswith("measure"))
    rows = [line.split() for line in out[start + 2 :]]
    assert [row[0] for row in rows] == ["R@100", "R@200", "R@500", "MAP@100", "MRR@100", "nDCG@10", "nDCG@100"]
    assert "BSARD's official BM25" in out[0] and "mean over all 2 queries" in out[0] and "percent" in out[0]
    figures = {row[0]: float(row[1]) for row in rows}
    # French stems: q2 "résilier le bail" -> résili, bail; q3 -> contrat, travail. df("bail") = 2 of 3 articles,
    # so its idf log10(1.5 / 2.5) is negative: q2 lists article 3 (0), then articles 1 and 2 tied below 0 in
    # corpus order: the relevant article 2 at rank 3 (trec_eval's docid-descending tie order would give rank 2).
    # q3 (relevant 3 and 1): article 3 scores > 0, then 1 and 2 tied at 0 in corpus order: ranks 1 and 2.
    assert figures["R@100"] == 100.0
    assert figures["MRR@100"] == pytest.approx(100 * (1 / 3 + 1) / 2, abs=0.005)
    assert figures["MAP@100"] == pytest.approx(100 * (1 / 3 + 1) / 2, abs=0.005)
    from tarsim.data import read_run

    run = read_run(tmp_path / "runs" / "bbsard-fr.0.run")
    assert all(len(ranked) == 3 for ranked in run.values())  # zero and negative scores listed too
    assert sorted(run["2"], key=run["2"].get, reverse=True) == ["3", "1", "2"]


def test_tied_scores_keep_the_listed_order_in_single_precision():
    import numpy as np

    from tarsim.retrieval.bsard import strictly_decreasing

    scores = np.array([2.5, 2.5, 2.5, 1.0 + 1e-12, 1.0, 0.0, 0.0, -0.5, -0.5])
    values = strictly_decreasing(scores)
    assert values[0] == 2.5 and values[4] != 1.0 and values[7] == -0.5  # only the later of each tie moves
    single = np.asarray(values, dtype=np.float32)
    assert (np.diff(single) < 0).all() and (np.diff(values) < 0).all()
    assert max(abs(a - b) for a, b in zip(values, scores, strict=True)) < 1e-5
