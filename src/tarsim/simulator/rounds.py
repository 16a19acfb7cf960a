"""A running review seen from outside: the ledger so far as a Ledger, and the state after each training round."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarsim.data.ledger import EFFORT_KEYS, Ledger


class LedgerSoFar:
    """The records a review has written so far, kept as the columns of a Ledger (arrays sized for every document
    being judged once), so that a view of the ledger so far costs no re-reading."""

    def __init__(self, header: dict, capacity: int) -> None:
        self.header = header
        self.rounds: list[dict] = []
        self.docids: list[str] = []
        self._int = {name: np.zeros(capacity, dtype=np.int64) for name in ("sentence", "label", "truth", "reviewer")}
        self._int["round"] = np.zeros(capacity, dtype=np.int64)
        self._time = np.zeros(capacity, dtype=np.float64)
        self._prior = np.zeros(capacity, dtype=bool)
        self._effort = {key: np.zeros(capacity, dtype=np.float64) for key in EFFORT_KEYS}
        self._pending: list[dict] = []  # judgments noted but not yet in the columns (filled in one go by a view)

    def __len__(self) -> int:
        return len(self.docids)

    def add_round(self, record: dict) -> None:
        """Note a training round's record."""
        self.rounds.append(record)

    def add_judgment(self, record: dict) -> None:
        """Note a judgment record (as parse_ledger would read it back); its columns are filled by the next view."""
        self.docids.append(record["docid"])
        self._pending.append(record)

    def _fill(self) -> None:
        """Write the pending judgments into the columns: a batch column by column, a few one by one."""
        pending = self._pending
        if not pending:
            return
        start = len(self.docids) - len(pending)
        if len(pending) < 8:  # one by one costs less than building arrays for a handful (a check every judgment)
            for k, record in enumerate(pending, start):
                self._int["sentence"][k] = -1 if record["sentence"] is None else record["sentence"]
                for name in ("label", "truth", "reviewer", "round"):
                    self._int[name][k] = record[name]
                self._time[k] = record["time"]
                self._prior[k] = record.get("prior", False) is True  # as parse_ledger reads it
                for key in EFFORT_KEYS:
                    self._effort[key][k] = record["effort"][key]
        else:
            end = start + len(pending)
            self._int["sentence"][start:end] = [-1 if r["sentence"] is None else r["sentence"] for r in pending]
            for name in ("label", "truth", "reviewer", "round"):
                self._int[name][start:end] = [r[name] for r in pending]
            self._time[start:end] = [r["time"] for r in pending]
            self._prior[start:end] = [r.get("prior", False) is True for r in pending]
            efforts = [r["effort"] for r in pending]
            for key in EFFORT_KEYS:
                self._effort[key][start:end] = [e[key] for e in efforts]
        pending.clear()

    def view(self, end: dict | None = None, *, stable: bool = True) -> Ledger:
        """The ledger so far (without an end record unless `end` is given). A stable view is not changed by later
        judgments; an unstable one (no copying: for a check that reads it at once) shares the growing lists."""
        self._fill()
        k = len(self.docids)
        return Ledger(
            header=self.header,
            rounds=list(self.rounds) if stable else self.rounds,
            end=end,
            docids=self.docids[:k] if stable else self.docids,
            sentence=self._int["sentence"][:k],
            label=self._int["label"][:k],
            truth=self._int["truth"][:k],
            time=self._time[:k],
            reviewer=self._int["reviewer"][:k],
            round=self._int["round"][:k],
            effort={key: values[:k] for key, values in self._effort.items()},
            prior=self._prior[:k],
        )


@dataclass(frozen=True)
class RoundState:
    """Where a review stands when a training round's batch is done (or cut short by a stop)."""

    round: int
    judgments: int  # judgments recorded so far
    relevant_found: int  # relevant documents presented so far (qrels truth, not the reviewer's label)
    time: float  # the SimPy clock (seconds)
    stopped: str | None  # why the review is stopping, when it is
    ledger: Ledger  # the ledger so far

    @property
    def effort(self) -> dict[str, float]:
        """Effort so far in each ledger increment (judge, sent, words, seconds), rounded as the ledger's times are
        (6 decimals), so that summed seconds do not show float noise."""
        return {key: round(float(values.sum()), 6) for key, values in self.ledger.effort.items()}
