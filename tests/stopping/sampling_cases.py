"""Hand-built reviews for the sampling and capture-recapture rules (scal, autostop, chao): a collection's docids
and qrels, a ledger with training rounds, and the learner's score log; `write_case` lays one out as files (ledger,
score-log sidecar, collection folder) for benchmarks/references/sampling_refs.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ledger_factory import ledger_lines
from tarsim.data.ledger import Ledger, ledger_from_lines
from tarsim.data.score_log import ScoreLog
from tarsim.stopping import ReplayContext


@dataclass
class Case:
    docids: list[str]
    qrels: dict[str, dict[str, int]]
    lines: list[str]
    log: ScoreLog | None

    @property
    def ledger(self) -> Ledger:
        return ledger_from_lines(self.lines)

    @property
    def context(self) -> ReplayContext:
        return ReplayContext(docids=self.docids, qrels=self.qrels, scores=self.log)


def bmi_rounds(n: int) -> list[int]:
    """Round numbers of n judgments in batches 1, 2, 3, ... (b += ceil(b / 10)), as a `bmi` review has them."""
    rounds, size, number = [], 1, 1
    while len(rounds) < n:
        rounds.extend([number] * size)
        size += -(-size // 10)
        number += 1
    return rounds[:n]


def make_case(
    order: list[int],
    relevant: set[int],
    size: int,
    rounds: list[int],
    scores: dict[int, np.ndarray] | None = None,
    *,
    topic: str = "t",
    seed: int = 0,
    reason: str = "stopped",
) -> Case:
    """A review of the documents d<i> of a collection of `size` presenting `order` in `rounds`, the documents in
    `relevant` relevant, with score rounds {judged: scores in collection order} (None: no score log)."""
    docids = [f"d{i:02d}" for i in range(size)]
    truth = [int(i in relevant) for i in order]
    lines = ledger_lines(
        truth,
        rounds=rounds,
        docids=[docids[i] for i in order],
        size=size,
        topic=topic,
        seed=seed,
        relevant=len(relevant),
        reason=reason,
        config={"log_scores": scores is not None},
    )
    log = None
    if scores is not None:
        log = ScoreLog(topic, size)
        for number, judged in enumerate(sorted(scores), start=1):
            log.add(number, judged, scores[judged])
    return Case(docids, {topic: {docids[i]: int(i in relevant) for i in range(size)}}, lines, log)


def synthetic_case(seed: int = 0, reviewed: int = 45) -> Case:
    """60 documents, d00..d11 relevant; a review of `reviewed` of them in bmi rounds, relevant ones mostly early;
    the learner's scores favour relevant documents, with a deterministic per-round jitter (no random generator)."""
    size, relevant = 60, set(range(12))
    order = [0, 12, 1, 2, 13, 3, 14, 4, 5, 15, 16, 6, 17, 18, 7, 19, 20, 21, 8, 22, 23, 24, 25, 9, 26, 27, 28, 29]
    order += [i for i in range(size) if i not in order]
    order = order[:reviewed]
    rounds = bmi_rounds(reviewed)
    starts = [0] + [p for p in range(1, reviewed) if rounds[p] != rounds[p - 1]] + [reviewed]
    scores = {}
    for number, judged in enumerate(starts):
        jitter = np.array([((i * 37 + number * 11) % 60) / 30.0 for i in range(size)])
        scores[judged] = (np.array([2.0 if i in relevant else 0.0 for i in range(size)]) + jitter - 2.0).astype(
            np.float32
        )
    return make_case(order, relevant, size, rounds, scores, seed=seed)


def write_case(case: Case, folder: Path) -> Path:
    """The case as files: OUT/ledgers/<topic>.jsonl with its OUT/scores/<topic>.npz, and a collection folder
    OUT/collection (docs.jsonl, qrels.txt, topics.tsv); returns the ledger's path."""
    ledger = case.ledger
    (folder / "ledgers").mkdir(parents=True, exist_ok=True)
    path = folder / "ledgers" / f"{ledger.topic}.jsonl"
    path.write_text("\n".join(case.lines) + "\n", encoding="utf-8")
    if case.log is not None:
        (folder / "scores").mkdir(exist_ok=True)
        case.log.save(folder / "scores" / f"{ledger.topic}.npz")
    collection = folder / "collection"
    collection.mkdir(exist_ok=True)
    docs = [json.dumps({"docid": d, "title": f"document {d}", "text": f"text of {d}"}) for d in case.docids]
    (collection / "docs.jsonl").write_text("\n".join(docs) + "\n", encoding="utf-8")
    qrels = [f"{ledger.topic} 0 {d} {g}" for d, g in case.qrels[ledger.topic].items()]
    (collection / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (collection / "topics.tsv").write_text(f"{ledger.topic}\tsynthetic topic\n", encoding="utf-8")
    return path
