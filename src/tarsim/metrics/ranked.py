"""Ranked-list measures computed with numpy: every measure of every topic from one array per topic.

Semantics (the reference is trec_eval, as in pytrec_eval; see docs/evaluate.md):
- a run ranks each topic's documents by score descending, the score rounded to float32 as trec_eval up to
  9.0.8 (and so pytrec_eval and ir_measures) stores it (`scores="float64"`: as trec_eval 10.0), ties by
  docid descending (trec_eval's order);
- a document absent from a topic's qrels is non-relevant; relevant means grade >= the measure's `rel`;
- every qrels topic (one with at least one judgment, of any grade) is scored, as trec_eval does: one without
  a relevant document scores 0 on every measure; a qrels topic the run lacks scores 0 (`missing="zero"`,
  trec_eval -c) or is left out (`missing="skip"`, trec_eval without -c); run topics not in the qrels are ignored;
- nDCG uses the qrels grade as gain (grades below `rel` gain 0) and a log2(rank + 1) discount.

Only the ranks of the judged-relevant documents matter, so each topic costs one sort of its scores and a
`searchsorted` per relevant document; the measures are then computed for all topics at once with bincount.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from tarsim.data.runs import RunTable
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.metrics.measures import DEFAULT_MEASURES, Measure, parse_measure

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]
PerQuery = dict[str, dict[str, float]]

SCORE_TYPES = {"float32": np.float32, "float64": np.float64}
"""How scores are compared: float32 as trec_eval <= 9.0.8 stores TEXT_RESULTS.sim (a C float; so pytrec_eval and
ir_measures), the default; float64 as trec_eval 10.0 (a double)."""

MISSING = ("zero", "skip")
"""What to do with a qrels topic that has no run line: score it 0 (trec_eval -c) or leave it out."""


@dataclass(frozen=True)
class RunCoverage:
    """How a run's topics meet the qrels topics (those with at least one judgment: the topics that are scored)."""

    qrels_topics: int
    """qrels topics with at least one judgment, of any grade (the topics a measure is computed for)."""
    without_run: int
    """of those, topics with no run line (no document retrieved)."""
    run_topics: int
    """topics with at least one run line."""
    not_in_qrels: int
    """run topics that the qrels do not mention at all (ignored as by trec_eval; 0 with `--average all`)."""


def _scored_topics(qrels: Qrels) -> list[str]:
    """The qrels topics trec_eval scores: every topic with a judgment line, relevant or not."""
    return sorted(topic for topic, judged in qrels.items() if judged)


def _check_scores(scores: str) -> None:
    if scores not in SCORE_TYPES:
        raise ConfigError(f"scores must be one of {', '.join(SCORE_TYPES)}, got {scores!r}")


def ranking_scores(values: np.ndarray, scores: str = "float32") -> np.ndarray:
    """Scores as trec_eval compares them (float32: beyond its range they tie at +-inf, as in trec_eval 9)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(SCORE_TYPES[scores])


def _check_missing(missing: str) -> None:
    if missing not in MISSING:
        raise ConfigError(f"missing must be one of {', '.join(MISSING)}, got {missing!r}")


def _run_topics(run: Run | RunTable) -> set[str]:
    """Topics with at least one run line."""
    if isinstance(run, RunTable):
        return set(run.topics)  # every code names a topic of some line
    return {topic for topic, ranked in run.items() if ranked}


def run_coverage(qrels: Qrels, run: Run | RunTable) -> RunCoverage:
    """Count the scored qrels topics without a run line and the run topics absent from the qrels."""
    scored = _scored_topics(qrels)
    covered = _run_topics(run)
    return RunCoverage(
        qrels_topics=len(scored),
        without_run=sum(1 for topic in scored if topic not in covered),
        run_topics=len(covered),
        not_in_qrels=sum(1 for topic in covered if topic not in qrels),
    )


def check_run_coverage(
    qrels: Qrels, run: Run | RunTable, missing: str = "zero", source: str = "run", *, average: str = "judged"
) -> RunCoverage:
    """Warn (InputWarning, one line each, with counts) when the run and the qrels cover different topics.

    With `missing="skip"` and no qrels topic left to score, raise an InputError naming `source`, since an
    average over no topic would print nothing or a misleading 0. `average` (tarsim.metrics.averaging) says
    what becomes of run topics not in the qrels: ignored (`judged`, as trec_eval) or scored 0 (`all`).
    """
    _check_missing(missing)
    cov = run_coverage(qrels, run)
    if cov.qrels_topics and cov.without_run == cov.qrels_topics:
        if missing == "skip":
            raise InputError(
                source,
                None,
                f"no topic left to score: none of the {cov.qrels_topics:,} qrels topics has a run line "
                "(--missing skip)",
            )
        warnings.warn(
            f"{source}: none of the {cov.qrels_topics:,} qrels topics has a run line "
            f"(the run has {cov.run_topics:,} topic{'' if cov.run_topics == 1 else 's'}): every topic scores 0; "
            "is this the run for these qrels?",
            InputWarning,
            stacklevel=2,
        )
    elif cov.without_run:
        what = (
            "scored 0, as trec_eval -c does; --missing skip to leave them out"
            if missing == "zero"
            else f"left out (--missing skip); {cov.qrels_topics - cov.without_run:,} topics scored"
        )
        warnings.warn(
            f"{source}: {cov.without_run:,} of {cov.qrels_topics:,} qrels topics have no run line: {what}",
            InputWarning,
            stacklevel=2,
        )
    if cov.not_in_qrels:
        warnings.warn(
            f"{source}: {cov.not_in_qrels:,} of {cov.run_topics:,} run topics are not in the qrels: "
            + ("scored 0 (--average all)" if average == "all" else "ignored, as trec_eval does"),
            InputWarning,
            stacklevel=2,
        )
    return cov


def _relevant_ranks(
    judged: Mapping[str, int], ranked: Mapping[str, float] | None, scores_as: str = "float32"
) -> tuple[list[int], list[float]]:
    """Grades (> 0) of a topic's relevant documents and their 1-based ranks in trec_eval order (inf: absent)."""
    relevant = [(docid, grade) for docid, grade in judged.items() if grade > 0]
    grades = [grade for _, grade in relevant]
    if not ranked:
        return grades, [math.inf] * len(relevant)
    rounded = ranking_scores(np.fromiter(ranked.values(), dtype=np.float64, count=len(ranked)), scores_as)
    scores = np.sort(rounded)
    found = [ranked.get(docid) for docid, _ in relevant]
    present = ranking_scores([math.nan if score is None else score for score in found], scores_as)
    right = np.searchsorted(scores, present, side="right")
    left = np.searchsorted(scores, present, side="left")
    ranks = (len(scores) - right + 1).astype(np.float64)
    ranks[np.isnan(present)] = math.inf
    tied = (right - left > 1) & ~np.isnan(present)
    if tied.any():
        # Ties in (float32) score among the documents ahead: order them as trec_eval does (docid descending).
        order = sorted(zip(rounded.tolist(), ranked, strict=True), reverse=True)
        position = {docid: rank for rank, (_, docid) in enumerate(order, start=1)}
        for index in np.flatnonzero(tied):
            ranks[index] = position[relevant[index][0]]
    return grades, ranks.tolist()


def _segment_positions(topic_index: np.ndarray) -> np.ndarray:
    """1-based position of each element inside its run of equal (sorted) topic indices."""
    count = len(topic_index)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, topic_index[1:] != topic_index[:-1]])
    lengths = np.diff(np.r_[starts, count])
    return np.arange(count) - np.repeat(starts, lengths) + 1


def _compute(
    measure: Measure, topics: int, tix: np.ndarray, ranks: np.ndarray, grades: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic values of one measure and the mask of topics it is defined on (>= 1 relevant)."""
    mask = grades >= measure.rel
    t, r = tix[mask], ranks[mask]  # sorted by (topic, rank)
    n_rel = np.bincount(t, minlength=topics).astype(np.float64)
    defined = n_rel > 0
    safe = np.where(defined, n_rel, 1.0)
    k = math.inf if measure.cutoff is None else measure.cutoff
    family = measure.family
    if family in ("R", "P", "Success"):
        hits = np.bincount(t, weights=(r <= k).astype(np.float64), minlength=topics)
        values = hits / safe if family == "R" else hits / k if family == "P" else (hits > 0).astype(np.float64)
    elif family == "RPrec":
        hits = np.bincount(t, weights=(r <= n_rel[t]).astype(np.float64), minlength=topics)
        values = hits / safe
    elif family == "AP":
        precision = _segment_positions(t) / r
        values = np.bincount(t, weights=np.where(r <= k, precision, 0.0), minlength=topics) / safe
    elif family == "RR":
        first = np.zeros(topics, dtype=np.float64)
        starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]]) if len(t) else np.zeros(0, dtype=np.int64)
        first[t[starts]] = np.where(r[starts] <= k, 1.0 / r[starts], 0.0)
        values = first
    elif family == "nDCG":
        gains = np.where(mask, grades, 0).astype(np.float64)
        dcg = np.bincount(tix, weights=np.where(ranks <= k, gains / np.log2(ranks + 1.0), 0.0), minlength=topics)
        ideal_order = np.lexsort((-gains, tix))
        ideal_gains, ideal_tix = gains[ideal_order], tix[ideal_order]
        ideal_rank = _segment_positions(ideal_tix).astype(np.float64)
        idcg = np.bincount(
            ideal_tix,
            weights=np.where(ideal_rank <= k, ideal_gains / np.log2(ideal_rank + 1.0), 0.0),
            minlength=topics,
        )
        values = dcg / np.where(idcg > 0, idcg, 1.0)
    else:  # pragma: no cover - Measure validates its family
        raise AssertionError(family)
    return values, defined


def _table_relevant_ranks(
    qrels: Qrels, topics: list[str], run: RunTable, scores_as: str = "float32"
) -> tuple[list[int], list[float], list[int]]:
    """_relevant_ranks for every topic at once from a RunTable: (topic index, rank, grade) of relevant documents.

    Per topic one sort of its (float32) scores and a searchsorted per relevant document, as _relevant_ranks; ties
    in score are ordered by docid descending (trec_eval's order), looked up only for the tied documents.
    """
    from tarsim.data.arrow_numpy import from_numpy  # pyarrow only with a RunTable

    code_of = {topic: code for code, topic in enumerate(run.topics)}
    relevant = [[(docid, grade) for docid, grade in qrels[topic].items() if grade > 0] for topic in topics]
    counts = [len(pairs) for pairs in relevant]
    tix = np.repeat(np.arange(len(topics), dtype=np.int64), counts)
    grades = [grade for pairs in relevant for _, grade in pairs]
    topic_codes = np.array([code_of.get(topic, -1) for topic in topics], dtype=np.int64)[tix]
    rows = run.rows_of(topic_codes, [docid for pairs in relevant for docid, _ in pairs])
    run_scores = ranking_scores(run.scores, scores_as)  # float32 by default, as trec_eval 9 compares them
    present = np.where(rows >= 0, run_scores[rows], math.nan).astype(run_scores.dtype)
    ranks = np.full(len(tix), math.inf)
    bounds = np.r_[0, np.cumsum(counts)]
    for index, topic in enumerate(topics):
        first, last = bounds[index], bounds[index + 1]
        code = code_of.get(topic)
        if code is None or first == last:
            continue
        topic_rows = run.rows_of_topic(code)
        scores = np.sort(run_scores[topic_rows])
        wanted = present[first:last]
        right = np.searchsorted(scores, wanted, side="right")
        left = np.searchsorted(scores, wanted, side="left")
        found = ~np.isnan(wanted)
        ranks[first:last][found] = (len(scores) - right + 1)[found]
        for i in np.flatnonzero((right - left > 1) & found).tolist():
            # Ties in score: those with a greater docid (compared as str, as trec_eval's order) rank ahead.
            tied = topic_rows[run_scores[topic_rows] == wanted[i]]
            own = relevant[index][i][0]
            names = run.docids.take(from_numpy(tied)).to_pylist()
            ranks[first + i] += sum(1 for name in names if name > own)
    return tix, ranks, grades


def evaluate_run(
    qrels: Qrels,
    run: Run | RunTable,
    measures: Iterable[Measure | str] = DEFAULT_MEASURES,
    *,
    missing: str = "zero",
    scores: str = "float32",
) -> PerQuery:
    """Score a run: {topic: {measure name: value}} for every qrels topic, trec_eval's value of every measure.

    A qrels topic is one with at least one judgment; one without a document at or above a measure's `rel`
    scores 0 on it (as trec_eval and pytrec_eval). Topics are in sorted order; topics of the run that the
    qrels do not judge are ignored. A qrels topic without a run line (no document retrieved) scores 0 with
    `missing="zero"` (trec_eval -c) and is left out with `missing="skip"` (trec_eval without -c).
    `check_run_coverage` reports how many topics that concerns. Scores are compared as float32, as trec_eval up
    to 9.0.8 and pytrec_eval (`scores="float64"`: as trec_eval 10.0); see SCORE_TYPES.
    """
    _check_missing(missing)
    _check_scores(scores)
    wanted: list[Measure] = []
    for item in measures:
        measure = parse_measure(item)
        if measure not in wanted:
            wanted.append(measure)
    topics = _scored_topics(qrels)
    if missing == "skip":
        covered = _run_topics(run)
        topics = [topic for topic in topics if topic in covered]
    tix_parts: list[int] = []
    rank_parts: list[float] = []
    grade_parts: list[int] = []
    if isinstance(run, RunTable):
        tix_parts, rank_parts, grade_parts = _table_relevant_ranks(qrels, topics, run, scores)
    for index, topic in enumerate(topics if not isinstance(run, RunTable) else ()):
        grades, ranks = _relevant_ranks(qrels[topic], run.get(topic), scores)
        tix_parts.extend([index] * len(grades))
        rank_parts.extend(ranks)
        grade_parts.extend(grades)
    tix = np.asarray(tix_parts, dtype=np.int64)
    ranks = np.asarray(rank_parts, dtype=np.float64)
    grades = np.asarray(grade_parts, dtype=np.int64)
    order = np.lexsort((ranks, tix))
    tix, ranks, grades = tix[order], ranks[order], grades[order]
    per_query: PerQuery = {topic: {} for topic in topics}
    for measure in wanted:
        values, _defined = _compute(measure, len(topics), tix, ranks, grades)  # 0 where no relevant document
        name = measure.name
        for topic, value in zip(topics, values.tolist(), strict=True):
            per_query[topic][name] = value
    return per_query


def aggregate(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Macro-average each measure over the topics that have it: evaluate_run's are trec_eval's (exact sum)."""
    sums: dict[str, list[float]] = {}
    for scores in per_query.values():
        for name, value in scores.items():
            sums.setdefault(name, []).append(value)
    return {name: math.fsum(values) / len(values) for name, values in sums.items()}
