"""Measures of a stop: what the stopping literature reports of one rule's stop on one review, for a target recall.

Per stop (rule x review x target): recall and cost at the stop (documents, every effort model), whether the target
was met (reliability, aggregated), CLEF's loss_er and the shortfall max(0, target - recall), the excess and
relative cost against the oracle stop for the target, work saved (WSS) and the true negative rate (Kusa et al.'s
normalised WSS), the stopping-methods paper's missed relevant / unused work saving, and the cost of a one-phase and
a two-phase review under cost structures (Yang, Lewis & Frieder 2021; TARexp's OptimisticCost).

Definitions (n: documents judged at the stop, the review's judgments plus a target sample's unseen documents;
N: collection size; R: relevant documents; r: recall at the stop; t: the target recall):

- the oracle stop for t: the first judgment at which recall >= t (so a stop meets t iff it is at or after it);
- shortfall = max(0, t - r); loss_er = loss_r + loss_e with loss_r = (1 - r)^2 and
  loss_e = (100 / N)^2 * (n / (R + 100))^2 (N replaced by n when n > N), as CLEF TAR's scripts/measures;
- excess_<model> = effort at the stop - effort at the oracle stop (negative when the rule stopped early);
  relative_<model> = their ratio; cost_<model> = effort at the stop plus, when r < t, the further review effort
  the ledger needed to reach t (cost_at_stop);
- wss = (N - n) / N - (1 - r) (Cohen et al.'s WSS at the stop's own recall); tnr = TN / (N - R), TN the
  non-relevant documents not judged at the stop (Kusa et al. 2023: normalised WSS); nwss_target = the tnr of the
  oracle stop for t (what the ranking allows at t, the same for every rule);
- missed_share = relevant documents the oracle stop had found and the rule's stop had not, over R;
  unused_saving = (n - n_t) / (N - n_t) for a stop after the oracle's (n_t), 1 when the rule never fired (the
  reviewer screens everything), 0 for a stop at or before it; remaining = N - n_t (Repke et al. 2025's
  ExploreResults notebook: missed%@recall, too_late_right%@recall, unseen@recall);
- cost structures (s1p, s1n, s2p, s2n): one_phase = s1p * positives + s1n * negatives judged until max(stop,
  oracle stop) (a failed stop pays for continuing the review); two_phase = s1p * positives + s1n * negatives
  judged at the stop, plus s2p * positives + s2n * negatives of a second phase that reviews the unjudged documents
  in the order of the ranking at the stop, down to the first rank at which the relevant documents judged in both
  phases reach t * R (TARexp's OptimisticCost: an optimistic, oracle cut-off).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model
from tarsim.metrics.recall_effort import first_relevant_presentations, recall_curve
from tarsim.stopping.evaluate import StopOutcome, evaluate_stopping

CLEF_B = 100.0
"""CLEF TAR's loss_e constant b (the effort allowance R + b)."""
COST_STRUCTURES = ((1.0, 1.0, 1.0, 1.0), (10.0, 10.0, 1.0, 1.0), (25.0, 5.0, 5.0, 1.0))
"""Default cost structures (s1p, s1n, s2p, s2n): uniform, expensive first phase, Yang et al.'s (25, 5, 5, 1)."""
PHASE_TWO_SCORES = "scores"
PHASE_TWO_LEDGER = "ledger"
"""The ranking a second phase reviews in: the learner's scores at the stop (a review with --log-scores, TARexp's
definition), else the order in which the review went on to present documents (an approximation)."""


def recall_at_stop(ledger: Ledger, rule: str, **options) -> float:
    """Recall when the stopping rule stops (see tarsim.stopping.evaluate_stopping for `options`)."""
    return evaluate_stopping(ledger, rule, **options).recall


def cost_at_stop(
    ledger: Ledger,
    rule: str,
    target_recall: float = 0.8,
    effort_model: str = "judge",
    **options,
) -> float | None:
    """Effort at the stop plus, if recall fell short of the target, the further review effort the ledger needed to
    reach it (a failed stop pays for continuing the review). None when the ledger never reaches the target."""
    model = make_effort_model(effort_model)
    outcome = evaluate_stopping(ledger, rule, effort_models=[effort_model], target_recall=target_recall, **options)
    spent = outcome.effort[model.name]
    if outcome.target_met:
        return spent
    curve = recall_curve(ledger, model)
    needed = curve.effort_to(target_recall)
    if needed is None:
        return None
    reviewed = float(curve.effort[outcome.position - 1]) if outcome.position else 0.0
    return spent + max(0.0, needed - reviewed)


def stop_measures(ledger: Ledger, rules: Iterable[str], target_recall: float = 0.8, **options) -> list[dict]:
    """Recall, effort (every model) and cost at stop of each rule: one row per rule."""
    rows = []
    for rule in rules:
        outcome = evaluate_stopping(ledger, rule, target_recall=target_recall, **options)
        row = outcome.to_row()
        row["cost_judge"] = cost_at_stop(ledger, rule, target_recall, "judge", **_replay_only(options))
        rows.append(row)
    return rows


def _replay_only(options: Mapping) -> dict:
    return {k: v for k, v in options.items() if k in ("docids", "qrels", "sample_costs")}


# ---- the measures of the stopping literature --------------------------------------------------------------------


def clef_loss(recall: float, shown: float, collection_size: int, relevant: int) -> tuple[float, float, float]:
    """CLEF TAR's (loss_r, loss_e, loss_er) of a run that showed `shown` documents and reached `recall`
    (scripts/measures/eval_measures_2018.py, LossBasedMeasures.finalize: N is raised to `shown` when exceeded)."""
    size = max(float(collection_size), float(shown))
    loss_r = (1.0 - recall) ** 2
    loss_e = (CLEF_B / size) ** 2 * (shown / (relevant + CLEF_B)) ** 2 if size else 0.0
    return loss_r, loss_e, loss_r + loss_e


def wss_at(recall: float, shown: float, collection_size: int) -> float:
    """Work saved over sampling at a stop (Cohen et al. 2006): (N - n) / N - (1 - recall)."""
    return (collection_size - shown) / collection_size - (1.0 - recall) if collection_size else math.nan


def true_negative_rate(shown: float, found: float, collection_size: int, relevant: int) -> float:
    """TN / (N - R): the share of the non-relevant documents left unjudged (Kusa et al. 2023's normalised WSS)."""
    negatives = collection_size - relevant
    if negatives <= 0:
        return math.nan
    judged_negative = max(0.0, shown - found)
    return max(0.0, negatives - judged_negative) / negatives


def needed_relevant(relevant: int, target: float, exceed: bool = False) -> int:
    """Relevant documents a review must find to reach `target` recall: ceil(t R) (recall >= t), or with `exceed`
    the least count above t R, as TARexp's OptimisticCost cuts (`cumsum > R * t`)."""
    goal = target * relevant
    if exceed:
        return math.floor(goal + 1e-9) + 1
    return max(0, math.ceil(goal - 1e-9))


def optimistic_cost(
    known_positive: int,
    known_negative: int,
    phase_two: Sequence[bool] | np.ndarray,
    relevant: int,
    target: float,
    structure: Sequence[float],
    exceed: bool = False,
) -> float | None:
    """The cost of a two-phase review (Yang, Lewis & Frieder, DocEng 2021; TARexp's OptimisticCost): the first
    phase judged `known_positive` relevant and `known_negative` non-relevant documents; the second reviews
    `phase_two` (relevance of the unjudged documents, in its ranking's order) down to the first rank at which the
    relevant documents of both phases reach the target (`needed_relevant`). `structure` = (s1p, s1n, s2p, s2n),
    unit costs of a relevant and a non-relevant document in each phase. None when the ranking never gets there."""
    s1p, s1n, s2p, s2n = (float(v) for v in structure)
    first = s1p * known_positive + s1n * known_negative
    missing = needed_relevant(relevant, target, exceed) - known_positive
    if missing <= 0:
        return first
    found = np.cumsum(np.asarray(phase_two, dtype=bool))
    reached = np.flatnonzero(found >= missing)
    if not reached.size:
        return None
    depth = int(reached[0]) + 1
    return first + s2p * missing + s2n * (depth - missing)


def structure_name(structure: Sequence[float]) -> str:
    """`25-5-5-1`: a cost structure as a column suffix."""
    return "-".join(f"{v:g}" for v in structure)


def parse_cost_structure(text: str) -> tuple[float, float, float, float]:
    """`25,5,5,1` (or `25-5-5-1`) as a cost structure (four non-negative numbers)."""
    from tarsim.errors import ConfigError

    parts = text.replace("-", ",").replace(":", ",").split(",")
    try:
        values = tuple(float(part) for part in parts)
    except ValueError:
        values = ()
    if len(values) != 4 or any(not math.isfinite(v) or v < 0 for v in values):
        raise ConfigError(
            f"cost structure {text!r}: expected four numbers >= 0, s1p,s1n,s2p,s2n (the unit cost of a relevant and "
            "a non-relevant document in the first and the second phase), e.g. 25,5,5,1"
        )
    return values  # type: ignore[return-value]


@dataclass
class ReviewFacts:
    """What every rule's measures read from one ledger, computed once: the recall and effort curves, which
    judgments were of relevant documents, and (for two-phase costs) the collection's docids, qrels and scores."""

    ledger: Ledger
    models: tuple[str, ...]
    docids: Sequence[str] | None = None
    qrels: Mapping[str, Mapping[str, int]] | None = None
    curves: dict[str, np.ndarray] = field(init=False)
    found: np.ndarray = field(init=False)
    positive: np.ndarray = field(init=False)
    _first_seen: dict[str, int] | None = field(init=False, default=None)
    _position: dict[str, int] | None = field(init=False, default=None)
    _truth: np.ndarray | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        ledger = self.ledger
        self.curves = {}
        for spec in self.models:
            model = make_effort_model(spec)
            self.curves[model.name] = recall_curve(ledger, model).effort
        found = np.cumsum(first_relevant_presentations(ledger)) if len(ledger) else np.zeros(0, dtype=np.int64)
        self.found = found
        self.positive = np.cumsum(ledger.truth > 0) if len(ledger) else np.zeros(0, dtype=np.int64)

    @property
    def size(self) -> int:
        return self.ledger.collection_size

    @property
    def relevant(self) -> int:
        return self.ledger.relevant

    def found_at(self, position: int) -> int:
        return int(self.found[position - 1]) if position else 0

    def recall_at(self, position: int) -> float:
        return self.found_at(position) / self.relevant if self.relevant else 0.0

    def oracle_position(self, target: float) -> int | None:
        """The first judgment count at which recall >= target (None: the ledger never gets there)."""
        if not self.relevant:
            return None
        reached = np.flatnonzero(self.found / self.relevant >= target - 1e-12)
        return int(reached[0]) + 1 if reached.size else None

    def effort_at(self, model: str, position: int) -> float:
        return float(self.curves[model][position - 1]) if position else 0.0

    def judged_counts(self, position: int, extra: Sequence[str] = ()) -> tuple[int, int]:
        """(relevant, non-relevant) judgments in the first `position` judgments plus the `extra` documents (a
        target sample's, unseen by then), by the qrels grade."""
        positive = int(self.positive[position - 1]) if position else 0
        negative = position - positive
        if extra:
            judged = (self.qrels or {}).get(self.ledger.topic, {})
            extra_positive = sum(1 for docid in extra if judged.get(docid, 0) > 0)
            positive += extra_positive
            negative += len(extra) - extra_positive
        return positive, negative

    def phase_two(self, position: int, known: set[str]) -> tuple[np.ndarray | None, str]:
        """Relevance of the documents not judged at `position` (nor in `known`), in the order a second phase reviews
        them: by the learner's scores at the stop when the review logged them and the collection is known, else the
        order in which the review went on to present them (documents it never presented are left out)."""
        ledger = self.ledger
        log = ledger.score_log
        if log is not None and self.docids is not None and self.qrels is not None:
            round_ = log.at(position)  # type: ignore[attr-defined]
            if round_ is not None:
                if self._position is None:
                    self._position = {docid: index for index, docid in enumerate(self.docids)}
                    judged = self.qrels.get(ledger.topic, {})
                    self._truth = np.array([judged.get(docid, 0) > 0 for docid in self.docids], dtype=bool)
                unknown = np.ones(len(self.docids), dtype=bool)
                for docid in set(ledger.docids[:position]) | known:
                    index = self._position.get(docid)
                    if index is not None:
                        unknown[index] = False
                rows = np.flatnonzero(unknown)
                order = rows[np.argsort(-round_.scores[rows].astype(np.float64), kind="stable")]
                return self._truth[order], PHASE_TWO_SCORES
        if self._first_seen is None:
            self._first_seen = {}
            for index, docid in enumerate(ledger.docids):
                self._first_seen.setdefault(docid, index)
        seen = set(ledger.docids[:position]) | known
        later = [
            index for docid, index in self._first_seen.items() if index >= position and docid not in seen
        ]  # first presentations after the stop, in ledger order (dicts keep insertion order)
        return (ledger.truth[np.array(later, dtype=np.int64)] > 0) if later else np.zeros(0, dtype=bool), (
            PHASE_TWO_LEDGER
        )


def measure_stop(
    facts: ReviewFacts,
    outcome: StopOutcome,
    target: float,
    structures: Sequence[Sequence[float]] = COST_STRUCTURES,
    sampled: Sequence[str] = (),
    phase_two_cache: dict | None = None,
) -> dict:
    """Every measure of one rule's stop on one review for one target recall (see the module docstring), as a
    flat dict: `sampled` are a target sample's documents the review had not presented by the stop."""
    N, R = facts.size, facts.relevant
    position = outcome.position
    shown = float(outcome.effort.get("judge", position + len(sampled)))
    recall = outcome.recall
    met = recall >= target - 1e-12
    row: dict = {
        "rule": outcome.rule,
        "target": target,
        "collection_size": N,
        "relevant": R,
        "stopped": outcome.stopped,
        "position": position,
        "documents": shown,
        "recall": recall,
        "target_met": met,
        "shortfall": max(0.0, target - recall),
    }
    row.update({f"effort_{model}": value for model, value in outcome.effort.items()})
    row["loss_r"], row["loss_e"], row["loss_er"] = clef_loss(recall, shown, N, R)
    row["wss"] = wss_at(recall, shown, N)
    found = facts.found_at(position)
    row["tnr"] = true_negative_rate(shown, found, N, R)
    oracle = facts.oracle_position(target)
    row["oracle_position"] = oracle
    for model in facts.curves:
        spent = outcome.effort.get(model)
        if spent is None:
            continue
        if oracle is None:
            row[f"excess_{model}"] = row[f"relative_{model}"] = row[f"cost_{model}"] = math.nan
            continue
        best = facts.effort_at(model, oracle)
        row[f"excess_{model}"] = spent - best
        row[f"relative_{model}"] = spent / best if best else math.nan
        further = max(0.0, best - facts.effort_at(model, position))
        row[f"cost_{model}"] = spent if met else spent + further
    if oracle is None:
        row.update(nwss_target=math.nan, missed_share=math.nan, unused_saving=math.nan, remaining=math.nan)
    else:
        oracle_found = facts.found_at(oracle)
        row["nwss_target"] = true_negative_rate(oracle, oracle_found, N, R)
        row["missed_share"] = max(0, oracle_found - found) / R
        screened = shown if outcome.stopped else float(N)
        left = N - oracle
        row["unused_saving"] = min(1.0, max(0.0, screened - oracle) / left) if left > 0 else 0.0
        row["remaining"] = float(left)
    positive, negative = facts.judged_counts(position, sampled)
    if structures:
        continued = max(position, oracle) if oracle is not None else None
        extra_positive, extra_negative = facts.judged_counts(0, sampled)
        cache = phase_two_cache if phase_two_cache is not None else {}
        key = (position, tuple(sampled))
        if key not in cache:
            cache[key] = facts.phase_two(position, set(sampled))
        ranking, how = cache[key]
        row["phase_two_ranking"] = how
        for structure in structures:
            name = structure_name(structure)
            s1p, s1n = float(structure[0]), float(structure[1])
            if met:
                one = s1p * positive + s1n * negative
            elif continued is None:
                one = math.nan
            else:
                p, n = facts.judged_counts(continued)
                one = s1p * (p + extra_positive) + s1n * (n + extra_negative)
            two = optimistic_cost(positive, negative, ranking, R, target, structure)
            row[f"one_phase_{name}"] = one
            row[f"two_phase_{name}"] = math.nan if two is None else two
    return row
