"""Loaders of the published formats (RegIR JSON lines, bBSARD CSV, PD CSV), conversion, `tarsim bench`
on small files written in exactly those formats, bad input, and every table cross-checked with pytrec_eval."""

from __future__ import annotations

import csv
import json
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
import pytrec_eval

from tarsim.cli import main
from tarsim.data import read_run
from tarsim.legal import load_bbsard, load_benchmark, load_pd, load_regir, save_benchmark

UK = {
    "UKSI20010001": (2001, "The Customs Duties Regulations implement agricultural levies and customs duties."),
    "UKSI19990002": (1999, "Regulations on the safety of toys and toy labelling for children."),
    "UKSI19780003": (1978, "Agricultural levies regulations: customs duties on imports of cereals."),
    "UKSI20050004": (2005, "Water quality regulations for bathing waters and drinking water."),
    "UKSI19700005": (1970, "Customs duties on agricultural levies before any directive."),
    "UKSI20100006": (2010, "Toy safety regulations: chemical limits for toys."),
}
EU = {
    "31977L0794": (
        1977,
        "train",
        "Commission Directive on agricultural levies and customs duties.",
        ["UKSI19780003", "UKSI20010001"],
    ),
    "31988L0378": (1988, "dev", "Council Directive on the safety of toys.", ["UKSI19990002"]),
    "31976L0160": (1976, "dev", "Council Directive concerning the quality of bathing water.", ["UKSI20050004"]),
    "32009L0048": (2009, "test", "Directive on the safety of toys: chemical requirements for toys.", ["UKSI20100006"]),
    "31998L0083": (
        1998,
        "test",
        "Council Directive on the quality of water intended for drinking water.",
        ["UKSI20050004"],
    ),
}


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def write_regir(folder: Path) -> Path:
    """The four files of eu2uk.zip: corpus.jsonl (UK regulations) and train/dev/test.jsonl (EU directives)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(
        folder / "corpus.jsonl",
        [
            {"document_id": d, "publication_year": str(y), "text": t, "relevant_documents": []}
            for d, (y, t) in UK.items()
        ],
    )
    for split in ("train", "dev", "test"):
        write_jsonl(
            folder / f"{split}.jsonl",
            [
                {"document_id": d, "publication_year": str(y), "text": t, "relevant_documents": rel}
                for d, (y, s, t, rel) in EU.items()
                if s == split
            ],
        )
    return folder


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


ARTICLES = {
    "fr": [
        "Le bail de résidence principale est conclu pour une durée de neuf ans.",
        "Le locataire peut résilier le bail à tout moment, moyennant un préavis de trois mois.",
        "Le contrat de travail à durée déterminée prend fin à son terme.",
        "Le travailleur licencié a droit à une indemnité de préavis.",
        "Les allocations de chômage sont versées au travailleur privé de travail.",
        "Le divorce pour désunion irrémédiable est prononcé par le tribunal de la famille.",
    ],
    "nl": [
        "De huurovereenkomst voor de hoofdverblijfplaats wordt gesloten voor negen jaar.",
        "De huurder kan de huurovereenkomst op elk ogenblik opzeggen met een opzegging van drie maanden.",
        "De arbeidsovereenkomst voor een bepaalde tijd eindigt op de vervaldag.",
        "De ontslagen werknemer heeft recht op een opzeggingsvergoeding.",
        "De werkloosheidsuitkeringen worden betaald aan de werknemer zonder werk.",
        "De echtscheiding op grond van onherstelbare ontwrichting wordt uitgesproken door de familierechtbank.",
    ],
}
QUESTIONS = {
    "fr": {
        "train": [("1", "Combien de temps dure un bail de résidence principale ?", "1")],
        "test": [
            ("2", "Puis-je résilier mon bail et quel préavis ?", "2,1"),
            ("3", "Ai-je droit à une indemnité si je suis licencié ?", "4"),
            ("4", "Comment obtenir le divorce devant le tribunal ?", "6"),
            ("5", "Quand les allocations de chômage sont-elles versées ?", "5,4"),
        ],
    },
    "nl": {
        "train": [("1", "Hoe lang duurt een huurovereenkomst voor de hoofdverblijfplaats?", "1")],
        "test": [
            ("2", "Kan ik mijn huurovereenkomst opzeggen en met welke opzegging?", "2,1"),
            ("3", "Heb ik recht op een vergoeding als ik ontslagen word?", "4"),
            ("4", "Hoe verkrijg ik een echtscheiding bij de rechtbank?", "6"),
            ("5", "Wanneer worden werkloosheidsuitkeringen betaald?", "5,4"),
        ],
    },
}
QUESTION_HEADER = ["id", "question", "category", "subcategory", "extra_description", "article_ids"]


def write_bbsard(folder: Path) -> Path:
    """fr/ and nl/ with corpus.csv, train.csv, test.csv as on the bBSARD dataset card."""
    for lang, articles in ARTICLES.items():
        write_csv(
            folder / lang / "corpus.csv",
            ["id", "article", "reference", "law_type", "code"],
            [[str(i), text, f"Art. {i}", "regional", "Code civil"] for i, text in enumerate(articles, 1)],
        )
        for split, rows in QUESTIONS[lang].items():
            write_csv(
                folder / lang / f"{split}.csv",
                QUESTION_HEADER,
                [[qid, q, "Famille", "Logement", "", ids] for qid, q, ids in rows],
            )
    return folder


PARAGRAPHS = {
    "1": "The trial court erred in denying the motion to suppress evidence from the warrantless search.",
    "2": "Defendant's right to a speedy trial was violated by the delay.",
    "3": "The jury instruction on self-defense was incomplete and misleading.",
    "4": "Counsel was ineffective for failing to object to the hearsay testimony.",
    "5": "The sentence is excessive given the mitigating factors.",
}


def write_pd(folder: Path) -> Path:
    """The PD release's layout: queries_and_targets.csv (a row per gold paragraph) and corpus.jsonl."""
    queries = {"1": "motion to suppress warrantless search", "2": "ineffective assistance of counsel hearsay",
               "3": "excessive sentence mitigating factors"}  # fmt: skip
    gold = [("1", "1"), ("2", "4"), ("2", "3"), ("3", "5")]
    write_csv(
        folder / "queries_and_targets.csv",
        ["query_idx", "query", "gold_idx", "gold_paragraph"],
        [[q, queries[q], g, PARAGRAPHS[g]] for q, g in gold],
    )
    write_jsonl(folder / "corpus.jsonl", [{"id": i, "contents": text} for i, text in PARAGRAPHS.items()])
    return folder


# ---------------------------------------------------------------- pytrec_eval cross-check


def pytrec_measure(name: str) -> tuple[str, str, int | None]:
    family, _, cutoff = name.partition("@")
    k = int(cutoff) if cutoff else None
    return {
        "R": (f"recall.{k}", f"recall_{k}", None),
        "nDCG": (f"ndcg_cut.{k}", f"ndcg_cut_{k}", None),
        "AP": (f"map_cut.{k}", f"map_cut_{k}", None),
        "RR": ("recip_rank", "recip_rank", k),
        "Success": (f"success.{k}", f"success_{k}", None),
        "RPrec": ("Rprec", "Rprec", None),
    }[family]


def cut(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """The top k of each topic in trec_eval order (score descending, docid descending)."""
    return {t: dict(sorted(r.items(), key=lambda x: (x[1], x[0]), reverse=True)[:k]) for t, r in run.items()}


def check_with_pytrec(qrels, run, summary: dict[str, float]) -> None:
    """Every figure of a table equals pytrec_eval's macro average (topics absent from the run score 0)."""
    judged = {t: j for t, j in qrels.items() if any(g > 0 for g in j.values())}
    assert summary
    for name, value in summary.items():
        spec, key, k = pytrec_measure(name)
        scored = cut(run, k) if k else run
        evaluator = pytrec_eval.RelevanceEvaluator(judged, {spec})
        results = evaluator.evaluate({t: r for t, r in scored.items() if t in judged and r})
        expected = sum(results.get(t, {}).get(key, 0.0) for t in judged) / len(judged)
        assert value == pytest.approx(expected, abs=1e-9), name


def bench_json(tmp_path: Path, args: list[str]) -> dict:
    out = tmp_path / "bench.json"
    assert main(["bench", *args, "--json", str(out), "--runs", str(tmp_path / "runs")]) == 0
    return json.loads(out.read_text())


# ---------------------------------------------------------------- loaders


def test_regir_loader_reads_the_published_schema(tmp_path) -> None:
    bench = load_regir(write_regir(tmp_path / "eu2uk"), "eu2uk")
    assert len(bench.collection) == len(UK)
    assert bench.splits == {
        "train": ["31977L0794"],
        "dev": ["31988L0378", "31976L0160"],
        "test": ["32009L0048", "31998L0083"],
    }
    assert bench.qrels["31977L0794"] == {"UKSI19780003": 1, "UKSI20010001": 1}
    assert bench.query_dates["31976L0160"] == 1976 and bench.doc_dates["UKSI19700005"] == 1970
    assert bench.topics["31988L0378"] == "Council Directive on the safety of toys."


def test_bbsard_loader_per_language(tmp_path) -> None:
    folder = write_bbsard(tmp_path / "bbsard")
    fr, nl = load_bbsard(folder, "fr"), load_bbsard(folder, "nl")
    assert fr.qrels == nl.qrels and fr.qrels["2"] == {"2": 1, "1": 1}
    assert fr.splits == {"train": ["1"], "test": ["2", "3", "4", "5"]}
    assert nl.topics["3"].startswith("Heb ik recht") and fr.preset == "bbsard-fr" and nl.preset == "bbsard-nl"


def test_pd_loader(tmp_path) -> None:
    bench = load_pd(write_pd(tmp_path / "pd"))
    assert bench.qrels == {"1": {"1": 1}, "2": {"4": 1, "3": 1}, "3": {"5": 1}}
    assert bench.splits == {"test": ["1", "2", "3"]} and bench.collection.docids == list(PARAGRAPHS)


def test_convert_from_zip_round_trips(tmp_path) -> None:
    folder = write_regir(tmp_path / "raw")
    archive = tmp_path / "eu2uk.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for file in folder.iterdir():
            handle.write(file, file.name)
    assert main(["data", "convert", "eu2uk", str(archive), str(tmp_path / "converted")]) == 0
    loaded = load_benchmark(tmp_path / "converted")
    original = load_regir(folder, "eu2uk")
    assert loaded.qrels == original.qrels and loaded.splits == original.splits
    assert loaded.doc_dates == original.doc_dates and loaded.query_dates == original.query_dates
    assert loaded.collection.docids == original.collection.docids and loaded.preset == "eu2uk"


# ---------------------------------------------------------------- bench tables vs pytrec_eval


def test_bench_eu2uk_date_filter_and_pytrec(tmp_path, capsys) -> None:
    folder = write_regir(tmp_path / "eu2uk")
    payload = bench_json(tmp_path, ["eu2uk", "--data", str(folder), "--k1-grid", "0.9,1.2", "--b-grid", "0.5,0.75"])
    table = capsys.readouterr().out
    assert "R@100" in table and "nDCG@20" in table and "RPrec" in table and "no date filter" in table
    bench = load_regir(folder, "eu2uk")
    rows = payload["eu2uk"]
    assert len(rows) == 5
    for index, row in enumerate(rows):
        run = read_run(tmp_path / "runs" / f"eu2uk.{index}.run")
        check_with_pytrec({t: bench.qrels[t] for t in bench.splits["test"]}, run, row["summary"])
        if "no date filter" not in row["label"]:
            for topic, ranked in run.items():  # a UK regulation cannot transpose a later directive
                assert all(bench.doc_dates[d] >= bench.query_dates[topic] for d in ranked)
    unfiltered = read_run(tmp_path / "runs" / "eu2uk.4.run")
    assert any(bench.doc_dates[d] < bench.query_dates[t] for t, r in unfiltered.items() for d in r)


def test_bench_bbsard_per_language_columns(tmp_path, capsys) -> None:
    folder = write_bbsard(tmp_path / "bbsard")
    payload = bench_json(tmp_path, ["bbsard", "--data", str(folder), "--all-measures"])
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("measure"))
    assert header.split() == ["measure", "fr", "nl"]
    for name in ("R@10", "MAP@100", "MRR@200", "nDCG@500"):
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
    for lang in ("fr", "nl"):
        row = payload[f"bbsard-{lang}"][0]
        assert (row["k1"], row["b"]) == (1.0, 0.6)
        assert len(row["summary"]) == 16
        qrels = load_bbsard(folder, lang).qrels
        check_with_pytrec(
            {t: qrels[t] for t in ("2", "3", "4", "5")},
            read_run(tmp_path / "runs" / f"bbsard-{lang}.0.run"),
            row["summary"],
        )


def test_bench_pd_hit_rate_and_decisions(tmp_path, capsys) -> None:
    folder = write_pd(tmp_path / "pd")
    decisions = tmp_path / "decisions.txt"
    decisions.write_text("1 1 1\n1 2 1\n2 4 1\n2 3 0\n3 5 1\n3 1 0\n")
    payload = bench_json(tmp_path, ["pd", "--data", str(folder), "--decisions", str(decisions)])
    out = capsys.readouterr().out
    assert "Recall(hit)@5" in out and "majority label" in out
    summary = payload["pd"][0]["summary"]
    assert set(summary) == {"Success@5", "Success@1"}
    check_with_pytrec(load_pd(folder).qrels, read_run(tmp_path / "runs" / "pd.0.run"), summary)
    figures = payload["decisions"]
    # tp: 1/1, 2/4, 3/5; fp: 1/2; fn: 2/3 (query/paragraph)
    assert figures["micro_precision"] == pytest.approx(3 / 4) and figures["micro_recall"] == pytest.approx(3 / 4)
    assert figures["majority_label"] == 1.0


def test_bench_doc2doc_no_tune_skips_the_grid_in_the_ablation(tmp_path, capsys) -> None:
    """--no-tune without --no-ablation: no tuned row and no grid search (it used to need --no-ablation too)."""
    folder = write_regir(tmp_path / "eu2uk")
    payload = bench_json(tmp_path, ["eu2uk", "--data", str(folder), "--no-tune"])
    captured = capsys.readouterr()
    labels = [row["label"] for row in payload["eu2uk"]]
    assert labels == [
        "raw text, k1/b default",
        "english-long, k1/b default",
        "english-long, k1/b default, no date filter",
    ]
    assert all((row["k1"], row["b"]) == (1.2, 0.75) for row in payload["eu2uk"])
    assert "tuned" not in captured.out and "tuned" not in captured.err and "dev R@100" not in captured.err
    unfiltered = read_run(tmp_path / "runs" / "eu2uk.2.run")
    bench = load_regir(folder, "eu2uk")
    assert any(bench.doc_dates[d] < bench.query_dates[t] for t, r in unfiltered.items() for d in r)


def write_pd_with_unjudged(folder: Path) -> Path:
    """A converted PD benchmark where query 4 is judged only 0 (in the qrels, no relevant paragraph) and query 5 is
    not judged at all (the release has neither: every row is a gold paragraph; converted directories can)."""
    bench = load_pd(write_pd(folder.parent / f"{folder.name}-release"))
    topics = {**bench.topics, "4": "hearsay testimony objection", "5": "speedy trial delay"}
    changed = replace(bench, topics=topics, qrels={**bench.qrels, "4": {"4": 0}}, splits={"test": list(topics)})
    save_benchmark(changed, folder)
    return folder


@pytest.mark.parametrize(
    ("average", "header", "listed"),
    [
        ("all", "mean over all 5 queries (3 with a relevant document)", ["1", "2", "3", "4", "5"]),
        ("judged", "mean over the 4 queries in the qrels (3 with a relevant document)", ["1", "2", "3", "4"]),
    ],
)
def test_bench_header_counts_queries_with_a_relevant_document(tmp_path, capsys, average, header, listed) -> None:
    """A query judged only 0 is in the qrels but has no relevant document; the JSON lists every averaged query."""
    folder = write_pd_with_unjudged(tmp_path / "pd")
    payload = bench_json(tmp_path, ["pd", "--data", str(folder), "--average", average])
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"pd: BM25 (bm25s, Lucene variant), test split, {header}"
    row = payload["pd"][0]
    assert list(row["per_query"]) == listed
    for name, value in row["summary"].items():
        values = [scores[name] for scores in row["per_query"].values()]
        assert value == pytest.approx(sum(values) / len(values), abs=1e-15)


def test_bench_decisions_on_unknown_topics_or_documents_are_left_out_with_a_warning(tmp_path, capsys) -> None:
    folder = write_pd_with_unjudged(tmp_path / "pd")
    decisions = tmp_path / "dec.txt"
    decisions.write_text("1 1 1\n1 nosuchdoc 1\n42 1 1\n42 2 0\n5 2 0\n")
    payload = bench_json(tmp_path, ["pd", "--data", str(folder), "--decisions", str(decisions)])
    captured = capsys.readouterr()
    assert (
        f"tarsim: warning: {decisions}: 3 of 5 decisions left out (2 on a topic not in pd's test split, "
        "1 on a document not in its corpus)\n"
    ) in captured.err
    figures = payload["decisions"]
    # kept: 1/1 (tp), 5/2 (tn); relevant and undecided: 2/4, 2/3, 3/5 (fn)
    counts = {name: figures[name] for name in ("tp", "fp", "fn", "tn", "pairs")}
    assert counts == {"tp": 1, "fp": 0, "fn": 3, "tn": 1, "pairs": 5}
    assert all(type(value) is int for value in counts.values())
    assert "micro precision" in captured.out and "micro-averaged over the 5 (query, document) pairs" in captured.out


# ---------------------------------------------------------------- bad input: one line, exit 2


def one_error_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("tarsim: error:") and "Traceback" not in lines[0]
    return lines[0]


def test_missing_file(tmp_path, capsys) -> None:
    folder = write_bbsard(tmp_path / "bbsard")
    (folder / "nl" / "test.csv").unlink()
    assert main(["bench", "bbsard", "--data", str(folder)]) == 2
    assert "nl/test.csv: no such file" in one_error_line(capsys)


def test_wrong_header(tmp_path, capsys) -> None:
    folder = write_bbsard(tmp_path / "bbsard")
    path = folder / "fr" / "train.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("article_ids", "articles", 1), encoding="utf-8")
    assert main(["data", "convert", "bbsard", str(folder), str(tmp_path / "out")]) == 2
    line = one_error_line(capsys)
    assert "fr/train.csv:1: wrong header: missing column(s) article_ids" in line
    assert not (tmp_path / "out").exists()


def test_qrels_id_absent_from_corpus(tmp_path, capsys) -> None:
    folder = write_bbsard(tmp_path / "bbsard")
    write_csv(
        folder / "fr" / "test.csv",
        QUESTION_HEADER,
        [["2", "question ?", "c", "s", "", "1"], ["3", "autre question ?", "c", "s", "", "2,99"]],
    )
    assert main(["bench", "bbsard", "--data", str(folder)]) == 2
    assert "fr/test.csv:3: question 3: article 99 is absent from corpus.csv" in one_error_line(capsys)
    regir = write_regir(tmp_path / "eu2uk")
    write_jsonl(
        regir / "dev.jsonl",
        [
            {
                "document_id": "31988L0378",
                "publication_year": "1988",
                "text": "toys",
                "relevant_documents": ["UKSI19990002", "UKSI00000000"],
            }
        ],
    )
    assert main(["data", "convert", "eu2uk", str(regir), str(tmp_path / "out")]) == 2
    assert "dev.jsonl:1: query '31988L0378': relevant document 'UKSI00000000' is absent" in one_error_line(capsys)
    pd = write_pd(tmp_path / "pd")
    with (pd / "queries_and_targets.csv").open("a", encoding="utf-8") as handle:
        handle.write("1,motion to suppress warrantless search,9,a paragraph not in the corpus\n")
    assert main(["bench", "pd", "--data", str(pd)]) == 2
    assert "queries_and_targets.csv:6: gold paragraph 9 is absent from the corpus" in one_error_line(capsys)


def test_unparseable_date(tmp_path, capsys) -> None:
    folder = write_regir(tmp_path / "eu2uk")
    records = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    records[2]["publication_year"] = "19x8"
    write_jsonl(folder / "corpus.jsonl", records)
    assert main(["bench", "eu2uk", "--data", str(folder)]) == 2
    assert "corpus.jsonl:3: publication_year does not parse as a year: '19x8'" in one_error_line(capsys)
