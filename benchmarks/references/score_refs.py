"""Run the reference implementation of a score-based stopping rule on a tarsim ledger and print where it stops.

    python benchmarks/references/score_refs.py --rule SPEC --ledger PATH [--ledger PATH ...] --refs /work/refs
        [--collection DIR] [--as-is]

The ledger must come with its score log (`tarsim simulate --log-scores`: OUT/scores/<name>.npz). The reference is
asked at tarsim's check points (the end of each training round, and the end of an exhausted pool), with the
same inputs tarsim's rule reads there: the documents reviewed so far (in order of first presentation, each once)
with the reviewer's labels, and the latest model's scores of the whole collection (probabilities, the logistic of
the logged log-odds, computed as ScoreRound.probabilities does). Prints one JSON line
`{"rule": SPEC, "reference": NAME, "stop": int|null, "tarsim": int|null}` per ledger (judgments reviewed at the
first check point where the reference says stop, and tarsim's replayed stop; with several ledgers, also "ledger").

References (read from --refs, never copied into tarsim):
- quant, quantci: TARexp 0.1.4's QuantStoppingRule, run by /work/PEERS/bin/python in a subprocess, on a TARexp
  Ledger annotated round by round (the first round as TARexp's seed round 0) and the round's probabilities as
  `workflow.latest_scores`.
- apriori, scores, salt: destiny-evidence/stopping-methods' methods/apriori.py, heuristic_scores.py, salt.py,
  imported from --refs (shared/types.py uses Python 3.12's `type` statement: a stand-in with the same names is
  put in its place), called as their simulation calls `compute`: labels of the documents seen, the scores of the
  documents seen (in review order) then of the unseen, and the batch bounds (here the training rounds).
  For `scores`, non-relevant labels are passed as -1 so that the reference's `labels >= 0` counts the relevant
  ones (tarsim's documented deviation); `--as-is` passes 0/1 labels instead.
- scoredist: dli1/auto-stop-tar's score_distribion_feedback_uniform, imported from --refs with its BM25 ranking
  replaced by the model's scores (ranked by a stable sort, highest first), its assessor by the review's labels,
  and its uniform sample by the documents reviewed so far; tarsim stops when every screened document was
  reviewed. (Its ranking module imports pyltr and rank_bm25, which are not needed here: a stand-in replaces it.)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from tarsim.data.ledger import read_ledger  # noqa: E402
from tarsim.data.score_log import logged_scores  # noqa: E402
from tarsim.datasets import load_dataset  # noqa: E402
from tarsim.stopping import ReplayContext, check_points, parse_stopping_rule  # noqa: E402

PEERS_PYTHON = "/work/PEERS/bin/python"


@dataclass
class Check:
    """What a rule reads at one check point."""

    judged: int
    positions: np.ndarray  # collection positions of the documents seen, in order of first presentation
    relevant: np.ndarray  # 0/1 per document seen
    bounds: np.ndarray  # (start, end) of each training round in `positions`
    log_odds: np.ndarray  # float32, the whole collection
    probabilities: np.ndarray  # float64


def checks(ledger, log, docids) -> list[Check]:
    """The inputs at every check point of the ledger, in order."""
    where = {docid: i for i, docid in enumerate(docids)}
    out = []
    for s in check_points(ledger):
        index: dict[int, int] = {}
        positions: list[int] = []
        relevant: list[int] = []
        starts: list[int] = []
        for k in range(s):
            if k == 0 or ledger.round[k] != ledger.round[k - 1]:
                starts.append(len(positions))
            p = where[ledger.docids[k]]
            if p not in index:
                index[p] = len(positions)
                positions.append(p)
                relevant.append(int(ledger.label[k] > 0))
            elif ledger.label[k] > 0:
                relevant[index[p]] = 1
        round_ = log.at(s)
        if round_ is None:
            continue
        ends = [*starts[1:], len(positions)]
        out.append(
            Check(
                s,
                np.array(positions, dtype=np.int64),
                np.array(relevant, dtype=np.int64),
                np.array(list(zip(starts, ends, strict=True)), dtype=np.int64),
                round_.scores,
                round_.probabilities(),
            )
        )
    return out


# ---- TARexp (quant, quantci) -----------------------------------------------------------------------------------
TAREXP_SCRIPT = r"""
import json, sys, types
import numpy as np
from tarexp.ledger import Ledger
from tarexp.component.stopping import QuantStoppingRule
target, nstd = float(sys.argv[1]), float(sys.argv[2])
rule = QuantStoppingRule(target_recall=target, nstd=nstd)
for path in sys.argv[3:]:  # one review each, one line each
    data = np.load(path)
    ledger = Ledger(int(data["n_docs"]))
    positions, relevant = data["positions"], data["relevant"]
    stop = None
    for r, (start, end) in enumerate(data["bounds"]):
        ledger.annotate([int(p) for p in positions[start:end]], [bool(x) for x in relevant[start:end]])
        checked = np.flatnonzero(data["check_round"] == r)
        if checked.size:
            i = int(checked[0])
            probabilities = 1.0 / (1.0 + np.exp(-data["log_odds"][i].astype(np.float64)))
            if rule.checkStopping(ledger.freeze(), workflow=types.SimpleNamespace(latest_scores=probabilities)):
                stop = int(data["judged"][i])
                break
    print(json.dumps(stop), flush=True)
"""


def _tarexp_inputs(path: Path, all_checks: list[Check], n_docs: int) -> None:
    """The file one review's TARexp run reads: its rounds, and at each check point the round's log-odds."""
    last = all_checks[-1]
    rounds_of = {tuple(c.bounds[-1]): i for i, c in enumerate(all_checks)}
    check_round = np.full(len(all_checks), -1, dtype=np.int64)
    for r, bound in enumerate(last.bounds):
        if tuple(bound) in rounds_of:
            check_round[rounds_of[tuple(bound)]] = r
    np.savez(
        path,
        n_docs=n_docs,
        positions=last.positions,
        relevant=last.relevant,
        bounds=last.bounds,
        check_round=check_round,
        judged=np.array([c.judged for c in all_checks]),
        log_odds=np.stack([c.log_odds for c in all_checks]),
    )


def run_tarexp_many(rule, reviews: list[tuple[list[Check], int]]) -> list[int | None]:
    """TARexp's Quant on each review (its check points' inputs, its collection size), in one PEERS process."""
    stops: list[int | None] = [None] * len(reviews)
    with tempfile.TemporaryDirectory() as tmp:
        paths, which = [], []
        for index, (all_checks, n_docs) in enumerate(reviews):
            if all_checks:
                path = Path(tmp) / f"review{index}.npz"
                _tarexp_inputs(path, all_checks, n_docs)
                paths.append(str(path))
                which.append(index)
        if paths:
            nstd = getattr(rule, "nstd", 0.0)
            done = subprocess.run(
                [PEERS_PYTHON, "-c", TAREXP_SCRIPT, repr(rule.target), repr(nstd), *paths],
                check=True,
                capture_output=True,
                text=True,
            )
            for index, line in zip(which, done.stdout.strip().splitlines()[-len(paths) :], strict=True):
                stops[index] = json.loads(line)
    return stops


def run_tarexp(rule, all_checks: list[Check], n_docs: int) -> int | None:
    """TARexp's Quant on one review."""
    return run_tarexp_many(rule, [(all_checks, n_docs)])[0]


# ---- destiny-evidence/stopping-methods (apriori, scores, salt) -------------------------------------------------
def destiny_method(refs: Path, filename: str, cls: str):
    root = refs / "destiny-evidence+stopping-methods"
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if "shared.types" not in sys.modules:
        stand_in = types.ModuleType("shared.types")  # shared/types.py needs Python 3.12 (`type X = ...`)
        for name in ("BatchBounds", "Bounds", "Scores", "BinaryScores", "Labels", "Sampling", "Indices"):
            setattr(stand_in, name, np.ndarray)
        sys.modules["shared.types"] = stand_in
    spec = importlib.util.spec_from_file_location(f"destiny_{Path(filename).stem}", root / "methods" / filename)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, cls)


def destiny_scores_vector(check: Check) -> np.ndarray:
    unseen = np.ones(len(check.probabilities), dtype=bool)
    unseen[check.positions] = False
    return np.concatenate([check.probabilities[check.positions], check.probabilities[unseen]])


def run_destiny(rule, all_checks: list[Check], n_docs: int, refs: Path, as_is: bool) -> int | None:
    kind = rule.kind.split(":")[0]
    if kind == "apriori":
        method = destiny_method(refs, "apriori.py", "Apriori")
        params = {"recall_target": rule.target, "inclusion_threshold": rule.threshold}
    elif kind == "scores":
        method = destiny_method(refs, "heuristic_scores.py", "HeuristicScores")
        params = {"recall_target": rule.target, "inclusion_threshold": rule.threshold}
    else:
        method = destiny_method(refs, "salt.py", "SALT")
        params = {
            "recall_target": rule.target,
            "alpha": rule.alpha,
            "nstd": rule.nstd,
            "use_adjusted": rule.adjusted,
            "use_margin": rule.margin,
        }
    for check in all_checks:
        labels = check.relevant.copy()
        if kind == "scores" and not as_is:
            labels = np.where(labels > 0, 1, -1)
        with np.errstate(all="ignore"):
            entry = method.compute(
                n_total=n_docs,
                labels=labels,
                scores=destiny_scores_vector(check),
                bounds=check.bounds,
                is_prioritised=None,
                full_labels=None,
                **params,
            )
        if entry["safe_to_stop"]:
            return check.judged
    return None


# ---- dli1/auto-stop-tar (scoredist) ----------------------------------------------------------------------------
class _NumpyWithSample(types.ModuleType):
    """numpy, except that `random.choice` returns the documents reviewed so far (the reference's sample)."""

    def __init__(self, sample: list[str]) -> None:
        super().__init__("numpy")
        self.random = types.SimpleNamespace(seed=lambda *a, **k: None, choice=lambda *a, **k: np.array(sample))

    def __getattr__(self, name):
        return getattr(np, name)


def run_scoredist(rule, all_checks: list[Check], docids: list[str], refs: Path) -> int | None:
    root = refs / "dli1+auto-stop-tar"
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if "autostop.tar_framework.ranking" not in sys.modules:
        stand_in = types.ModuleType("autostop.tar_framework.ranking")  # imports pyltr, rank_bm25: not needed
        stand_in.bm25_okapi_rank = None
        sys.modules["autostop.tar_framework.ranking"] = stand_in
    import logging

    from autostop.tar_model import score_distribution as sd

    logging.getLogger("autostop.tar_framework.utils").setLevel(logging.WARNING)
    for check in all_checks:
        reviewed = {docids[p] for p in check.positions}
        if all(did in reviewed for did in _screened(sd, check, docids, rule.target)):
            return check.judged
    return None


def _screened(sd, check: Check, docids: list[str], target: float) -> list[str]:
    """The documents the reference screens at one check point (its run file's), its inputs replaced by ours."""
    scores = check.log_odds.astype(np.float64)
    order = np.argsort(-scores, kind="stable")
    relevant = {docids[p] for p, r in zip(check.positions, check.relevant, strict=True) if r}
    shown: list[list[str]] = []

    class Assessor:
        def __init__(self, *args) -> None:
            pass

        get_complete_dids = staticmethod(lambda: list(docids))
        get_complete_texts = staticmethod(lambda: [""] * len(docids))
        get_title = staticmethod(lambda: "")
        get_total_doc_num = staticmethod(lambda: len(docids))
        get_rel_label = staticmethod(lambda did: sd.REL if did in relevant else sd.NONREL)
        assess_state_check_func = staticmethod(lambda: lambda did: False)

    sd.Assessor = Assessor
    sd.bm25_okapi_rank = lambda dids, texts, query: ([docids[i] for i in order], [scores[i] for i in order])
    sd.np = _NumpyWithSample([docids[p] for p in check.positions])
    sd.name_tar_run_file = lambda **kwargs: "/dev/null"
    sd.write_tar_run_file = lambda f, topic_id, check_func, shown_dids: shown.append(list(shown_dids))
    with np.errstate(invalid="ignore"):  # its normal of deviation 0 (one relevant score) gives NaN bounds
        sd.score_distribion_feedback_uniform("d", "t", "t", "", "", "", "", target_recall=target)
    return shown[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", required=True)
    parser.add_argument("--ledger", required=True, action="append", help="a ledger (repeat: one line each)")
    parser.add_argument("--refs", required=True, type=Path)
    parser.add_argument("--collection", help="the collection reviewed (default: ../shared/datasets/srd/<topic>)")
    parser.add_argument("--as-is", action="store_true", help="scores: pass 0/1 labels (the reference's bug shows)")
    args = parser.parse_args()
    rule = parse_stopping_rule(args.rule)
    kind = rule.spec.split(":")[0]
    if kind not in ("quant", "quantci", "apriori", "scores", "salt", "scoredist"):
        raise SystemExit(f"no reference for {args.rule!r} here")
    collections: dict[str, list[str]] = {}
    reviews = []
    for path in args.ledger:
        ledger = read_ledger(path)
        log = logged_scores(ledger)
        if log is None:
            raise SystemExit(f"{path}: no score log (run the review with --log-scores)")
        collection = args.collection or str(ROOT.parent / "shared" / "datasets" / "srd" / ledger.topic)
        if collection not in collections:
            collections[collection] = list(load_dataset(collection).collection.docids)
        docids = collections[collection]
        reviews.append((path, ledger, log, docids, checks(ledger, log, docids)))
    if kind in ("quant", "quantci"):
        name = "tarexp.QuantStoppingRule"
        stops = run_tarexp_many(rule, [(all_checks, len(docids)) for _, _, _, docids, all_checks in reviews])
    elif kind in ("apriori", "scores", "salt"):
        file = {"apriori": "apriori", "scores": "heuristic_scores", "salt": "salt"}[kind]
        name = f"destiny-evidence/stopping-methods methods/{file}.py" + (" (as is)" if args.as_is else "")
        stops = [run_destiny(rule, c, len(d), args.refs, args.as_is) for _, _, _, d, c in reviews]
    else:
        name = "dli1/auto-stop-tar score_distribion_feedback_uniform"
        stops = [run_scoredist(rule, c, d, args.refs) for _, _, _, d, c in reviews]
    for (path, ledger, log, docids, _), stop in zip(reviews, stops, strict=True):
        ours = rule.stop_position(ledger, ReplayContext(docids=docids, scores=log))
        line = {"rule": args.rule, "reference": name, "stop": stop, "tarsim": ours}
        print(json.dumps(line if len(args.ledger) == 1 else {**line, "ledger": path}), flush=True)


if __name__ == "__main__":
    main()
