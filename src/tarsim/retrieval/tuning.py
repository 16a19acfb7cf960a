"""Grid search of BM25 k1 and b on a dev split, optimising one ranked-list measure (tarsim.metrics)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tarsim.data import Qrels, Run
from tarsim.errors import ConfigError
from tarsim.retrieval.bm25 import PreparedCorpus, check_bm25_parameters, search

K1_GRID = (0.3, 0.6, 0.9, 1.2, 1.6, 2.0, 3.0)
B_GRID = (0.1, 0.3, 0.5, 0.75, 0.9, 1.0)


@dataclass(frozen=True)
class TuningResult:
    """The best (k1, b) and the dev score of every grid point, in grid order."""

    measure: str
    k1: float
    b: float
    score: float
    grid: tuple[tuple[float, float, float], ...]


def tune_bm25(
    corpus: PreparedCorpus,
    queries: Mapping[str, str],
    qrels: Qrels,
    measure: str,
    *,
    k1_grid: Sequence[float] = K1_GRID,
    b_grid: Sequence[float] = B_GRID,
    progress: Callable[[float, float, float], None] | None = None,
    **search_options: object,
) -> TuningResult:
    """Evaluate every (k1, b) on `queries` (the dev split) and keep the best by `measure`.

    Ties keep the earlier grid point, so the choice is deterministic. Queries are analysed once.
    """
    from tarsim.metrics import aggregate, evaluate_run, parse_measure

    measure = parse_measure(measure).name
    if not k1_grid or not b_grid:
        raise ConfigError("the k1 and b grids need at least one value each")
    for k1 in k1_grid:
        for b in b_grid:
            check_bm25_parameters(k1, b, k1_name="k1 grid value", b_name="b grid value")
    judged = {topic: text for topic, text in queries.items() if topic in qrels}
    if not judged:
        raise ConfigError("no dev query has relevance judgments: cannot tune")
    topics = list(judged)
    query_ids = corpus.query_term_ids([judged[t] for t in topics])
    dev_qrels = {t: qrels[t] for t in topics}
    results: list[tuple[float, float, float]] = []
    best: tuple[float, float, float] | None = None
    for k1 in k1_grid:
        for b in b_grid:
            run: Run = search(corpus, judged, k1=k1, b=b, query_ids=query_ids, **search_options)  # type: ignore[arg-type]
            score = aggregate(evaluate_run(dev_qrels, run, [measure]))[measure]
            results.append((k1, b, score))
            if progress:
                progress(k1, b, score)
            if best is None or score > best[2]:
                best = (k1, b, score)
    assert best is not None
    return TuningResult(measure=measure, k1=best[0], b=best[1], score=best[2], grid=tuple(results))
