"""Text tables in the papers' layouts: doc2doc ablation rows, bBSARD per-language columns, PD hit rates; which
layout a benchmark's report takes, and its figures as JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tarsim.legal.baseline import BaselineResult, CorpusCache
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.presets import Preset, get_preset
from tarsim.retrieval import get_analyzer, shortening

DISPLAY = {"AP": "MAP", "RR": "MRR", "Success": "Recall(hit)"}


def display_name(measure: str) -> str:
    """How the papers name a measure: MAP@k for AP@k, MRR@k for RR@k, hit-rate recall for Success@k."""
    family, at, cutoff = measure.partition("@")
    return f"{DISPLAY.get(family, family)}{at}{cutoff}"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned first column, right-aligned others."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, ["-" * w for w in widths], *rows]:
        cells = [str(row[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def doc2doc_table(results: Sequence[BaselineResult], measures: Sequence[str]) -> str:
    """One row per configuration, with its k1/b and the pre-fetching / re-ranking measures."""
    header = ["BM25 configuration", "k1", "b", *(display_name(m) for m in measures)]
    rows = [[r.label, f"{r.k1:g}", f"{r.b:g}", *(f"{r.summary.get(m, 0.0):.4f}" for m in measures)] for r in results]
    return format_table(header, rows)


def language_table(results: Mapping[str, BaselineResult], measures: Sequence[str], percent: bool = False) -> str:
    """Measures as rows and one column per language (bBSARD's layout), in percent (2 decimals) if asked."""
    languages = list(results)
    header = ["measure", *languages]

    def cell(value: float) -> str:
        return f"{100 * value:.2f}" if percent else f"{value:.4f}"

    rows = [[display_name(m), *(cell(results[lang].summary.get(m, 0.0)) for lang in languages)] for m in measures]
    return format_table(header, rows)


def decisions_table(figures: Mapping[str, float]) -> str:
    """Binary relevance decisions against the majority-label baseline (PD reranking): micro-averaged precision,
    recall and F1 (pooled over the (query, document) pairs), and accuracy over the same pairs."""
    header = ["decisions", "micro precision", "micro recall", "micro F1", "accuracy"]
    rows = []
    for label, prefix in (("reranker", ""), ("majority label", "majority_")):
        rows.append(
            [
                label,
                *(f"{figures[f'{prefix}micro_{m}']:.4f}" for m in ("precision", "recall", "f1")),
                f"{figures[f'{prefix}accuracy']:.4f}",
            ]
        )
    note = (
        f"precision, recall, F1: micro-averaged over the {int(figures['pairs']):,} (query, document) pairs (each "
        f"decision, and each relevant document left undecided as a miss): tp {int(figures['tp']):,}, "
        f"fp {int(figures['fp']):,}, "
        f"fn {int(figures['fn']):,}, tn {int(figures['tn']):,}"
    )
    return format_table(header, rows) + "\n" + note


def benchmark_report(
    name: str,
    benchmarks: Sequence[Benchmark],
    results: Mapping[str, Sequence[BaselineResult]],
    caches: Mapping[str, CorpusCache],
    preset: Preset | None = None,
) -> str:
    """`tarsim bench`'s report in the paper's layout: doc2doc ablation rows (with the share of query tokens that
    preprocessing keeps), bBSARD one column per language, otherwise one BM25 column."""
    first = benchmarks[0]
    preset = preset or get_preset(first.preset)
    averaged = next(iter(results.values()))[0].per_query  # every query the mean is over
    relevant = sum(1 for topic in averaged if any(grade > 0 for grade in first.qrels.get(topic, {}).values()))
    variant = "BSARD's official BM25" if preset.bm25 == "bsard" else "bm25s, Lucene variant"
    over = (
        f"mean over all {len(averaged):,} queries" if preset.average == "all" else
        f"mean over the {len(averaged):,} queries in the qrels"
    )  # fmt: skip
    lines = [
        f"{name}: BM25 ({variant}), {preset.eval_split} split, {over} ({relevant:,} with a relevant document)"
        + (", in percent" if preset.percent else "")
    ]
    if preset.doc2doc:
        queries = list(first.split(preset.eval_split).values())
        raw_tokens = get_analyzer("raw").tokenize(queries)
        prep_ids = caches[first.name].get(get_analyzer(preset.analyzer)).query_term_ids(queries)
        lines.append(
            f"query preprocessing ({preset.analyzer}) keeps {1 - shortening(raw_tokens, prep_ids):.0%} "
            f"of the raw tokens on average"
        )
        lines.append(doc2doc_table(results[first.name], preset.measures))
    elif name == "bbsard":
        columns = {b.language: results[b.name][0] for b in benchmarks}
        lines.append(language_table(columns, preset.measures, preset.percent))
    else:
        lines.append(language_table({"BM25": results[first.name][0]}, preset.measures, preset.percent))
    evaluator = results[first.name][0].evaluator
    if evaluator is not None:
        lines.append(evaluator_table(evaluator))
    return "\n".join(lines)


def evaluator_table(figures: Mapping[str, float]) -> str:
    """The release code's sentence-transformers evaluator figures (tarsim.legal.irevaluator), named apart from the
    paper's: Hit@k is the paper's recall@k, ST-Recall@k the evaluator's `recall@k` (share of the gold paragraphs)."""
    note = (
        "as the release code's InformationRetrievalEvaluator reports them (over the queries with a gold paragraph): "
        "Hit@k = the paper's recall@k and the evaluator's accuracy@k; ST-Recall@k = the evaluator's recall@k"
    )
    return note + "\n" + format_table(["measure", "BM25"], [[name, f"{value:.4f}"] for name, value in figures.items()])


def results_payload(
    results: Mapping[str, Sequence[BaselineResult]], decisions: Mapping[str, float] | None = None
) -> dict:
    """The figures of every configuration (label, k1, b, summary, per-query values), and decision figures."""
    payload: dict = {
        name: [
            {"label": r.label, "k1": r.k1, "b": r.b, "summary": r.summary, "per_query": r.per_query}
            | ({"evaluator": r.evaluator} if r.evaluator is not None else {})
            for r in rows
        ]
        for name, rows in results.items()
    }
    if decisions is not None:
        payload["decisions"] = decisions
    return payload
