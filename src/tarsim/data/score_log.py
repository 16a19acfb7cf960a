"""The learner's scores of every document at each training round: a ledger's sidecar (`OUT/scores/<topic>.npz`,
written by `--log-scores`), so that score-based stopping rules replay exactly what they would have decided online.

A round's scores are those the learner gave, when it trained on the first `judged` judgments of the ledger, to every
document of the collection in collection order: the unjudged ones a rule estimates from, and the judged ones too,
which Quant's probability sums need (TARexp's QuantStoppingRule sums the latest model's scores over both). Scores are
the learner's log-odds (0 is its decision boundary; `probabilities()` is their logistic). The file holds flat
arrays, the collection's docids (so that a replay needs no collection) and a SHA-256 of them, and is written to a
temporary file and renamed, so a reader sees the whole log or refuses it in one line.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.data.regular_files import open_regular
from tarsim.errors import InputError

SCORE_LOG_FORMAT = 1
SCORES_FOLDER = "scores"
_ARRAYS = ("round", "judged", "scores")


@dataclass(frozen=True)
class ScoreRound:
    """One training round's scores: trained on the first `judged` judgments, scoring every document."""

    round: int
    judged: int
    scores: np.ndarray  # float32 log-odds, one per document of the collection (collection order)

    def probabilities(self) -> np.ndarray:
        """The scores as probabilities of relevance (the logistic of the log-odds, in float64)."""
        return 1.0 / (1.0 + np.exp(-self.scores.astype(np.float64)))


class ScoreLog:
    """A review's score rounds in training order; `at(s)` is what a rule checked after s judgments may read."""

    def __init__(
        self,
        topic: str,
        collection_size: int,
        rounds: list[ScoreRound] | None = None,
        docids: Sequence[str] | None = None,
    ) -> None:
        self.topic = topic
        self.collection_size = collection_size
        self.docids = tuple(docids) if docids is not None else None  # collection order (a replay needs no collection)
        if self.docids is not None and len(self.docids) != collection_size:
            raise ValueError(f"{len(self.docids)} docids for a collection of {collection_size} documents")
        self.rounds: list[ScoreRound] = list(rounds or [])
        self._judged = [r.judged for r in self.rounds]

    def __len__(self) -> int:
        return len(self.rounds)

    def add(self, round_number: int, judged: int, scores: np.ndarray) -> None:
        """Log a round (called by the review right after the learner scores the collection)."""
        if self._judged and judged < self._judged[-1]:
            raise ValueError(f"score round {round_number} trained on {judged} judgments, before the last round's")
        scores = np.array(scores, dtype=np.float32)
        if scores.shape != (self.collection_size,):
            raise ValueError(f"a score round needs one score per document ({self.collection_size})")
        self.rounds.append(ScoreRound(int(round_number), int(judged), scores))
        self._judged.append(int(judged))

    def at(self, judged: int) -> ScoreRound | None:
        """The latest round trained on at most `judged` judgments (None: no round yet).

        Online, the round trained on exactly s judgments is logged before judgment s + 1 is written, so a rule
        checked when judgment s + 1 arrives (the end of a round at s) reads the same round as its replay."""
        index = bisect.bisect_right(self._judged, judged)
        return self.rounds[index - 1] if index else None

    def arrays(self) -> dict[str, np.ndarray]:
        """The log as the flat arrays its file holds."""
        scores = [r.scores for r in self.rounds]
        arrays = {
            "round": np.array([r.round for r in self.rounds], dtype=np.int64),
            "judged": np.array(self._judged, dtype=np.int64),
            "scores": np.stack(scores) if scores else np.zeros((0, self.collection_size), dtype=np.float32),
        }
        if self.docids is not None:
            arrays["docids"] = np.array(self.docids, dtype=str)
        return arrays

    def save(self, path: str | os.PathLike) -> None:
        """Write the log to `path` atomically (a temporary file renamed over it), with a SHA-256 of its arrays."""
        arrays = self.arrays()
        meta = {
            "format": SCORE_LOG_FORMAT,
            "topic": self.topic,
            "collection_size": self.collection_size,
            "sha256": _digest(arrays),
        }
        with atomic_write(path, "wb") as handle:
            np.savez(handle, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ScoreLog:
        """Read a log written by `save`; a damaged, truncated or edited file is refused in one line."""
        try:  # a regular file only: a FIFO or a link to /dev/zero is refused, never read
            with open_regular(path) as handle, np.load(handle, allow_pickle=False) as data:
                arrays = {name: data[name] for name in (*_ARRAYS, "docids") if name in data.files}
                meta = json.loads(str(data["meta"]))
                missing = [name for name in _ARRAYS if name not in arrays]
                if missing:
                    raise KeyError(f"no {missing[0]!r} array")
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
            raise InputError(path, None, f"not a tarsim score log ({type(exc).__name__}: {exc})") from None
        if meta.get("format") != SCORE_LOG_FORMAT:
            raise InputError(
                path, None, f"score log format {meta.get('format')!r}; this tarsim reads {SCORE_LOG_FORMAT}"
            )
        if _digest(arrays) != meta.get("sha256"):
            raise InputError(path, None, "score log damaged: its arrays do not match the SHA-256 it records")
        scores = arrays["scores"]
        size, count = int(meta["collection_size"]), len(arrays["round"])
        if scores.ndim != 2 or scores.shape != (count, size) or len(arrays["judged"]) != count:
            raise InputError(path, None, f"score log arrays of shape {scores.shape} do not match its rounds")
        rounds = [
            ScoreRound(int(r), int(j), row) for r, j, row in zip(arrays["round"], arrays["judged"], scores, strict=True)
        ]
        docids = arrays["docids"].tolist() if "docids" in arrays else None
        if docids is not None and len(docids) != size:
            raise InputError(path, None, f"score log holds {len(docids)} docids for {size} documents")
        return cls(str(meta["topic"]), size, rounds, docids)


def _digest(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in (*_ARRAYS, "docids"):
        if name not in arrays:
            continue
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def logged_scores(ledger: Ledger) -> ScoreLog | None:
    """The score log of a review run with --log-scores: the one kept in memory, else the ledger file's sidecar
    (checked to be this topic's); None for a review that logged none."""
    if ledger.score_log is not None:
        return ledger.score_log  # type: ignore[return-value]
    if not (ledger.header.get("config") or {}).get("log_scores") or ledger.source.startswith("<"):
        return None
    path = score_log_path(ledger.source)
    if not path.exists():
        raise InputError(path, None, f"missing: the score log of {ledger.source} (written by --log-scores)")
    log = ScoreLog.load(path)
    if log.topic != ledger.topic or log.collection_size != ledger.collection_size:
        raise InputError(path, None, f"is the score log of another review than {ledger.source}")
    return log


def score_log_path(ledger_path: str | os.PathLike) -> Path:
    """Where a ledger's score log lives: `OUT/scores/<name>.npz` beside `OUT/ledgers/<name>.jsonl`, else
    `<name>.scores.npz` beside the ledger."""
    path = Path(ledger_path)
    stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
    if path.parent.name == "ledgers":
        return path.parent.parent / SCORES_FOLDER / f"{stem}.npz"
    return path.with_name(f"{stem}.scores.npz")
