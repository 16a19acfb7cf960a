"""CLEF eHealth TAR's measures, as the task's official evaluation computes them (github:CLEF-TAR/tar,
scripts/tar_eval.py with scripts/measures/eval_measures.py, under Python 3).

Written from the script's definitions, with its rules kept where they are unusual (docs/clef.md lists each one):
documents read in file order, a repeated document and qrels values of 3 or more skipped, topics without a relevant
document skipped, `NS` lines not shown (but counted by NCG@k's rank), the cost measure's own reading of the
interaction codes, WSS@95's target count rounded half to even, NCG@k taken at multiples of int(N/10), norm_area
rounded before it is averaged, the aggregate NCG@k a ratio of means. Values are the script's: integers where it
prints integers (`wss_100` is the integer 0 when recall stays below 1), floats elsewhere; `format_value` prints a
value as the script does (floats rounded to 3 decimals).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tarsim.data.ledger import Ledger
from tarsim.data.qrels import Qrels
from tarsim.errors import ConfigError, InputError
from tarsim.interop.clef_runs import ClefRunLine, clef_run_from_ledger

NCG_MEASURES = tuple(f"NCG@{k}" for k in range(10, 101, 10))
MEASURES: tuple[str, ...] = (
    "num_docs",
    "num_rels",
    "num_shown",
    "num_feedback",
    "rels_found",
    "last_rel",
    "wss_100",
    "wss_95",
    *NCG_MEASURES,
    "total_cost",
    "total_cost_uniform",
    "total_cost_weighted",
    "norm_area",
    "ap",
    "r",
    "loss_e",
    "loss_r",
    "loss_er",
)
"""Every measure the script prints for a topic, in its order (after the `topic_id` line)."""

SUMMED = frozenset({"num_docs", "num_rels", "num_shown", "num_feedback", "rels_found"})
"""Measures the aggregate (`ALL`) sums over topics; it averages every other one."""

_START: dict[str, int | float] = {name: 0 for name in (*SUMMED, "last_rel", "total_cost")}
"""The aggregate's starting values where they are not 0.0 (the integer 0 stays an integer when no topic is left)."""

COST_ACTIONS = {"AFN": "AF", "DFN": "AF", "DFS": "AF", "NFS": "NF", "NFN": "NS"}
"""How the script's cost measure (only it) reads interaction codes beyond AF, NF, NS."""

CHECK_COST, ASSESS_COST, FEEDBACK_COST, PENALTY_COST = 0.0, 1.0, 2.0, 2.0
"""The script's costs: a document not shown, one assessed, its feedback, and each unshown document's penalty."""
LOSS_B = 100.0
"""loss_e's constant b."""

Value = int | float


def format_value(value: Value | str) -> str:
    """A value as the script prints it: floats rounded to 3 decimals, in Python's shortest form (0.65, 1.0)."""
    return str(round(value, 3)) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class ClefTopic:
    """The measures of one topic (`values`, in MEASURES order) and the cumulative gains its aggregate needs."""

    topic: str
    values: dict[str, Value]
    cg_at: tuple[float, ...] = field(repr=False)  # cumulative gain at the ten NCG checkpoints
    max_cg: float = field(repr=False)


@dataclass(frozen=True)
class ClefEvaluation:
    """Every evaluated topic in run order, the aggregate (`ALL`), and what the script reports on the side."""

    topics: list[ClefTopic]
    aggregate: dict[str, Value]
    skipped: list[str] = field(default_factory=list)  # topics without a relevant document ("Skipping topic")
    duplicates: list[tuple[str, str, int]] = field(default_factory=list)  # (topic, docid, run line) skipped


class TopicScorer:
    """The script's measures of one topic, fed one run line at a time in review order."""

    def __init__(self, topic: str, num_docs: int, num_rels: int, source: str = "qrels") -> None:
        if num_docs < 10:  # the script's NCG step int(N / 10) is 0 and it stops with ZeroDivisionError
            raise InputError(
                source,
                None,
                f"topic {topic!r} has {num_docs} documents; CLEF's NCG@k needs at least 10 (the official "
                "script fails on it with a division by zero)",
            )
        self.topic, self.num_docs, self.num_rels = topic, num_docs, num_rels
        self.rels_95 = round(float(num_rels) * 0.95)  # Python 3's round: half to even (28.5 -> 28)
        self.shown = self.feedback = self.found = self.last_rel = self.last_rel_95 = 0
        self.ap_sum = 0.0
        self.area, self.cg = 0.0, 0
        self.lines, self.step, self.total_cg = 0, num_docs // 10, 0.0
        self.cg_at = [0.0] * 11
        self.total_cost: Value = 0
        self.cost_shown = self.cost_found = 0

    def add(self, value: int, action: str) -> None:
        """One document of the run: its qrels value and interaction code."""
        relevant = 1 if 0 < value < 3 else 0
        if action != "NS":
            self.shown += 1
            if relevant:
                if self.found < self.rels_95:
                    self.last_rel_95 = self.shown
                self.found += 1
                self.last_rel = self.shown
                self.ap_sum += self.found / float(self.shown)
            self.area += self.cg + relevant * 0.5
            self.cg += relevant
            self.total_cg += relevant
        if action == "AF":
            self.feedback += 1
        self.lines += 1  # NCG@k's rank counts NS lines too
        if self.lines % self.step == 0:
            position = int((float(self.lines) / float(self.num_docs)) * 10.0)
            for p in range(position, 11):
                self.cg_at[p] = self.total_cg
        self._add_cost(value, COST_ACTIONS.get(action, action))

    def _add_cost(self, value: int, action: str) -> None:
        cost = CHECK_COST
        if action != "NS":
            self.cost_shown += 1
            self.cost_found += value > 0
            cost = ASSESS_COST
        if action == "AF":
            cost += FEEDBACK_COST
        self.total_cost = self.total_cost + cost

    def result(self) -> ClefTopic:
        """The topic's measures once every line was added."""
        n, r = self.num_docs, self.num_rels
        values: dict[str, Value] = {"num_docs": n, "num_rels": r, "num_shown": self.shown}
        values |= {"num_feedback": self.feedback, "rels_found": self.found, "last_rel": self.last_rel}
        n_seen = max(n, self.shown)  # the script's fix when more documents were shown than the qrels hold
        values["wss_100"] = float(n_seen - self.last_rel) / float(n_seen) if self.found >= r else 0
        wss_95 = (float(n_seen - self.last_rel_95) / float(n_seen)) - 0.05
        values["wss_95"] = wss_95 if self.found >= self.rels_95 else 0
        max_cg = float(r)
        for name, gain in zip(NCG_MEASURES, self.cg_at[:10], strict=True):  # NCG@100 is the gain at 10 * step
            values[name] = float(gain) / max_cg if max_cg > 0.0 else 0.0
        values |= self._costs()
        values["norm_area"] = self._norm_area()
        values["ap"] = self.ap_sum / float(r) if r > 0 else 0.0
        recall = float(self.found) / float(r) if r > 0 else 0.0
        values["r"] = recall
        values["loss_e"] = pow(LOSS_B / n_seen, 2.0) * pow(self.shown / (r + LOSS_B), 2.0)
        values["loss_r"] = pow(1 - recall, 2.0)
        values["loss_er"] = values["loss_r"] + values["loss_e"]
        return ClefTopic(self.topic, {name: values[name] for name in MEASURES}, tuple(self.cg_at[:10]), max_cg)

    def _costs(self) -> dict[str, Value]:
        missed, unseen = self.num_rels - self.cost_found, self.num_docs - self.cost_shown
        uniform = ((unseen * PENALTY_COST) * missed) / float(self.num_rels) if self.num_rels > 0 else 0
        # the weighted penalty halves for each further missed document: N_unseen * CP * (1 - 0.5 ** (missed - 1))
        weighted = (unseen * PENALTY_COST) * (1 / 2) * ((1 - pow(0.5, missed - 1)) / (1 - 0.5)) if missed > 0 else 0
        return {
            "total_cost": self.total_cost,
            "total_cost_uniform": self.total_cost + uniform,
            "total_cost_weighted": self.total_cost + weighted,
        }

    def _norm_area(self) -> float:
        """Area under the cumulative-gain curve over the ideal one's, rounded to 3 decimals before any mean."""
        r, unseen, area = self.num_rels, self.num_docs - self.shown, self.area
        max_area = r * self.num_docs - (r * r) / 2.0
        if unseen > 0:
            area += unseen * self.cg
        if unseen < 0:  # more shown than the qrels hold: the ideal curve is as long as the shown list
            max_area = r * (self.num_docs - unseen) - (r * r) / 2.0
        return round(area / max_area, 3) if max_area > 0.0 else 0.0


def aggregate(topics: Sequence[ClefTopic]) -> dict[str, Value]:
    """The script's `ALL` row: sums of the counts, means of the rest (each summed in topic order, then divided by
    the number of topics), NCG@k as the mean cumulative gain over the mean number of relevant documents."""
    count = len(topics)
    result: dict[str, Value] = {}
    for name in MEASURES:
        if name in NCG_MEASURES:
            continue
        total: Value = _START.get(name, 0.0)
        for topic in topics:
            total = total + topic.values[name]
        result[name] = total if name in SUMMED or count == 0 else total / float(count)
    gains, max_cg = [0.0] * 10, 0.0
    for topic in topics:
        gains = [g + t for g, t in zip(gains, topic.cg_at, strict=True)]
        max_cg = max_cg + topic.max_cg
    if count:
        gains, max_cg = [g / float(count) for g in gains], max_cg / float(count)
    ncg = {name: g / max_cg if max_cg > 0.0 else 0.0 for name, g in zip(NCG_MEASURES, gains, strict=True)}
    return {name: ncg.get(name, result.get(name, 0.0)) for name in MEASURES}


def evaluate_clef(qrels: Qrels, run: Iterable[ClefRunLine], source: str = "qrels") -> ClefEvaluation:
    """Evaluate a CLEF run against qrels as the official script does.

    A topic starts wherever the topic column changes (a topic whose lines are apart is evaluated twice, as in the
    script). Its N counts the qrels documents of the topic without value -1 or > 2 (plus the unjudged documents an
    earlier block of the same topic looked up: the script's qrels table keeps them, as 0); its R the values 1
    and 2. A topic with R = 0 is skipped. In a topic, a repeated document and one with value >= 3 are skipped; a
    document absent from the qrels counts as non-relevant. `source` names the qrels in errors.
    """
    topics: list[ClefTopic] = []
    skipped: list[str] = []
    duplicates: list[tuple[str, str, int]] = []
    looked_up: dict[str, dict[str, int]] = {}  # unjudged documents the script's qrels table gained, per topic
    current: str | None = None
    scorer: TopicScorer | None = None
    seen: set[str] = set()
    for line in run:
        if line.topic != current:
            if scorer is not None:
                topics.append(scorer.result())
            current, scorer, seen = line.topic, None, set()
            judged = {**qrels.get(current, {}), **looked_up.get(current, {})}
            relevant = sum(1 for value in judged.values() if value in (1, 2))
            if relevant == 0:
                skipped.append(current)
                continue
            size = sum(1 for value in judged.values() if not (value == -1 or value > 2))
            scorer = TopicScorer(current, size, relevant, source)
        if scorer is None:
            continue
        if line.docid in seen:
            duplicates.append((line.topic, line.docid, line.line))
            continue
        seen.add(line.docid)
        value = qrels.get(current, {}).get(line.docid)
        if value is None:
            looked_up.setdefault(current, {})[line.docid] = value = 0
        if value < 3:
            scorer.add(value, line.interaction)
    if scorer is not None:
        topics.append(scorer.result())
    return ClefEvaluation(topics, aggregate(topics), skipped, duplicates)


def evaluate_ledger(ledger: Ledger, priors: str = "include") -> ClefTopic:
    """The CLEF measures of a simulated review: the run of tarsim.interop.clef_runs.clef_run_from_ledger (review
    order, every document `AF`) evaluated with N = the collection's size and R = its relevant documents (the
    ledger header's), each document's value its qrels grade made binary (grade > 0 is relevant)."""
    truth: dict[str, int] = {}
    for docid, grade in zip(ledger.docids, ledger.truth.tolist(), strict=True):
        truth.setdefault(docid, int(grade > 0))
    scorer = TopicScorer(ledger.topic, ledger.collection_size, ledger.relevant, ledger.source)
    for line in clef_run_from_ledger(ledger, priors):
        scorer.add(truth[line.docid], line.interaction)
    return scorer.result()


def clef_measure_names(requested: Iterable[str]) -> list[str] | None:
    """The CLEF measures named in `-m` values (`clef` for all of them, or names such as `wss_95,loss_er`, comma
    separated or repeated; `clef:ap` names CLEF's ap where `ap` alone is trec_eval's AP), or None when the values
    name ranked-list measures only. CLEF and ranked-list measures together are refused: they read runs apart."""
    pieces = [piece.strip() for value in requested for piece in value.split(",") if piece.strip()]
    names: list[str] = []
    given: list[str] = []
    other: list[str] = []
    explicit = False
    for piece in pieces:
        name = piece.removeprefix("clef:")
        if piece == "clef":
            names.extend(MEASURES)
            given.append(piece)
            explicit = True
        elif name in MEASURES:
            names.append(name)
            given.append(piece)
            explicit = explicit or piece != name or not _ranked_measure(name)
        else:
            other.append(piece)
    if not names or not explicit:
        return None  # `-m ap`: trec_eval's AP, as before
    if other:
        raise ConfigError(
            f"CLEF measures ({', '.join(given)}) cannot be mixed with ranked-list measures "
            f"({', '.join(other)}): CLEF runs are read in file order with their interaction codes; evaluate apart"
        )
    return list(dict.fromkeys(names))


def _ranked_measure(name: str) -> bool:
    """Whether `name` is also a ranked-list measure name (`ap`)."""
    from tarsim.metrics.measures import parse_measure

    try:
        parse_measure(name)
    except ConfigError:
        return False
    return True
