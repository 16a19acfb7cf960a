"""Run a benchmark's BM25 baseline (optionally tuned on dev) and evaluate it with tarsim.metrics."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tarsim.data import Qrels, Run, Topics
from tarsim.errors import ConfigError, InputWarning
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.irevaluator import evaluator_means
from tarsim.legal.presets import Preset
from tarsim.retrieval import (
    B_GRID,
    K1_GRID,
    Analyzer,
    PreparedCorpus,
    TuningResult,
    get_analyzer,
    search,
    tune_bm25,
)
from tarsim.retrieval.bsard import BsardBM25


@dataclass
class BaselineResult:
    """One configuration's run on the evaluation split and its measures."""

    label: str
    k1: float
    b: float
    run: Run
    per_query: dict[str, dict[str, float]]
    summary: dict[str, float]
    tuning: TuningResult | None = None
    evaluator: dict[str, float] | None = None  # the release code's evaluator figures (presets with `evaluator`)


class CorpusCache:
    """Tokenise a benchmark's corpus once per analyzer."""

    def __init__(self, benchmark: Benchmark) -> None:
        self.benchmark = benchmark
        self._prepared: dict[Analyzer, PreparedCorpus] = {}
        self._bsard: dict[tuple[Analyzer, float, float], BsardBM25] = {}

    def texts(self) -> list[str]:
        """Each document's title and text."""
        return [f"{doc.title}\n{doc.text}" if doc.title else doc.text for doc in self.benchmark.collection]

    def get(self, analyzer: Analyzer) -> PreparedCorpus:
        if analyzer not in self._prepared:
            self._prepared[analyzer] = PreparedCorpus(self.benchmark.collection.docids, self.texts(), analyzer)
        return self._prepared[analyzer]

    def bsard(self, analyzer: Analyzer, k1: float, b: float) -> BsardBM25:
        """The official BSARD BM25 over this corpus (built once per analyzer, k1 and b)."""
        key = (analyzer, k1, b)
        if key not in self._bsard:
            self._bsard[key] = BsardBM25(self.benchmark.collection.docids, self.texts(), analyzer, k1, b)
        return self._bsard[key]


def subsample(topics: Topics, limit: int | None, seed: int) -> Topics:
    """At most `limit` topics drawn with a fixed seed, in their original order."""
    if limit is None or limit >= len(topics):
        return dict(topics)
    keys = list(topics)
    chosen = sorted(np.random.default_rng(seed).choice(len(keys), size=limit, replace=False).tolist())
    return {keys[i]: topics[keys[i]] for i in chosen}


def evaluate(
    qrels: Qrels,
    topics: Topics,
    run: Run,
    measures: Sequence[str],
    *,
    missing: str = "zero",
    source: str = "run",
    average: str = "judged",
):
    """Per-query and averaged measures over `topics` (tarsim.metrics, trec_eval semantics per query).

    Queries that retrieved nothing score 0 (or are left out with `missing="skip"`). `average="judged"` averages
    over the queries in the qrels, as trec_eval -c; `"all"` over every query of `topics`, a query without
    judgments scoring 0 (tarsim.metrics.averaging). The per-query values list every query the mean is over (with
    `"all"`, those without judgments at 0). Queries without judgments are reported as an InputWarning with
    counts, naming `source`.
    """
    from tarsim.metrics import evaluate_run
    from tarsim.metrics.averaging import average as average_of
    from tarsim.metrics.averaging import averaged_per_query, check_average
    from tarsim.metrics.ranked import check_run_coverage

    check_average(average)
    judged = {t: qrels[t] for t in topics if t in qrels}
    if len(judged) < len(topics):
        fate = "scored 0 (average over all queries)" if average == "all" else "not evaluated"
        warnings.warn(
            f"{source}: {len(topics) - len(judged):,} of {len(topics):,} queries have no relevance judgments: {fate}",
            InputWarning,
            stacklevel=2,
        )
    ranked = {t: run.get(t, {}) for t in judged}
    check_run_coverage(judged, ranked, missing, source)
    per_query = evaluate_run(judged, ranked, list(measures), missing=missing)
    asked = [t for t in topics if missing == "zero" or run.get(t)]
    summary = average_of(per_query, list(measures), mode=average, topics=asked)
    return averaged_per_query(per_query, list(measures), mode=average, topics=asked), summary


def run_config(
    benchmark: Benchmark,
    preset: Preset,
    cache: CorpusCache,
    *,
    label: str,
    analyzer: Analyzer,
    tune: bool,
    use_dates: bool = True,
    max_queries: int | None = None,
    seed: int = 0,
    k1_grid: Sequence[float] = K1_GRID,
    b_grid: Sequence[float] = B_GRID,
    progress: Callable[[str], None] | None = None,
    missing: str = "zero",
) -> BaselineResult:
    """Search the evaluation split with one configuration (tuning k1/b on the tuning split if asked)."""
    if preset.bm25 == "bsard":
        return _run_bsard(benchmark, preset, cache, label=label, analyzer=analyzer, max_queries=max_queries,
                          seed=seed, missing=missing)  # fmt: skip
    corpus = cache.get(analyzer)
    options = {
        "depth": preset.depth,
        "date_filter": preset.date_filter if use_dates else None,
        "doc_dates": benchmark.doc_dates,
        "query_dates": benchmark.query_dates,
        "exclude_self": True,
    }
    k1, b, tuning = preset.k1, preset.b, None
    if tune and preset.tune:
        dev = subsample(benchmark.split(preset.tune_split), max_queries, seed)
        tuning = tune_bm25(
            corpus,
            dev,
            benchmark.qrels,
            preset.tune,
            k1_grid=k1_grid,
            b_grid=b_grid,
            progress=(lambda k, bb, s: progress(f"{label}: k1={k} b={bb} dev {preset.tune}={s:.4f}"))
            if progress
            else None,
            **options,
        )
        k1, b = tuning.k1, tuning.b
    test = subsample(benchmark.split(preset.eval_split), max_queries, seed)
    run = search(corpus, test, k1=k1, b=b, **options)  # type: ignore[arg-type]
    source = f"{benchmark.name} ({label})"
    per_query, summary = evaluate(
        benchmark.qrels, test, run, preset.measures, missing=missing, source=source, average=preset.average
    )
    return BaselineResult(
        label=label, k1=k1, b=b, run=run, per_query=per_query, summary=summary, tuning=tuning,
        evaluator=evaluator_means(benchmark.qrels, run, topics=test) if preset.evaluator else None,
    )  # fmt: skip


def doc2doc_ablation(
    benchmark: Benchmark, preset: Preset, cache: CorpusCache | None = None, *, tune: bool = True, **kwargs: object
) -> list[BaselineResult]:
    """Default vs tuned k1/b, raw vs preprocessed long queries, and the date filter's contribution.

    With `tune=False` (`tarsim bench --no-tune`) no grid search runs: the default rows, and the date filter's
    contribution at the default k1/b.
    """
    cache = cache or CorpusCache(benchmark)
    raw, prep = get_analyzer("raw"), get_analyzer(preset.analyzer)
    configs = [
        ("raw text, k1/b default", raw, False, True),
        (f"{preset.analyzer}, k1/b default", prep, False, True),
        ("raw text, k1/b tuned", raw, True, True),
        (f"{preset.analyzer}, k1/b tuned", prep, True, True),
        (f"{preset.analyzer}, k1/b tuned, no date filter", prep, True, False),
    ]
    if not tune:
        configs = [*configs[:2], (f"{preset.analyzer}, k1/b default, no date filter", prep, False, False)]
    results = []
    tuned: dict[Analyzer, tuple[float, float, TuningResult]] = {}
    for label, analyzer, tunes, dates in configs:  # not `tune`: the parameter chose the configs above
        if tunes and analyzer in tuned and not dates:
            k1, b, tuning = tuned[analyzer]
            fixed = Preset(**{**preset.__dict__, "k1": k1, "b": b})
            result = run_config(
                benchmark, fixed, cache, label=label, analyzer=analyzer, tune=False, use_dates=False, **kwargs
            )  # type: ignore[arg-type]
            result.tuning = tuning
        else:
            result = run_config(
                benchmark, preset, cache, label=label, analyzer=analyzer, tune=tunes, use_dates=dates, **kwargs
            )  # type: ignore[arg-type]
            if tunes and result.tuning is not None:
                tuned[analyzer] = (result.k1, result.b, result.tuning)
        results.append(result)
    return results


def _run_bsard(
    benchmark: Benchmark,
    preset: Preset,
    cache: CorpusCache,
    *,
    label: str,
    analyzer: Analyzer,
    max_queries: int | None,
    seed: int,
    missing: str,
) -> BaselineResult:
    """The official BSARD BM25 (tarsim.retrieval.bsard) on the evaluation split: no tuning, no date filter."""
    if preset.date_filter is not None or preset.doc2doc:
        raise ConfigError(f"the bsard BM25 has no date filter or doc2doc mode; preset {preset.name} needs them")
    model = cache.bsard(analyzer, preset.k1, preset.b)
    test = subsample(benchmark.split(preset.eval_split), max_queries, seed)
    run = model.search(test, depth=preset.depth)
    source = f"{benchmark.name} ({label})"
    per_query, summary = evaluate(
        benchmark.qrels, test, run, preset.measures, missing=missing, source=source, average=preset.average
    )
    return BaselineResult(
        label=label, k1=preset.k1, b=preset.b, run=run, per_query=per_query, summary=summary,
        evaluator=evaluator_means(benchmark.qrels, run, topics=test) if preset.evaluator else None,
    )  # fmt: skip
