"""Reference implementations of tarsim's heuristic stopping rules, run on tarsim's ledgers (issue 27's agreement).

    python benchmarks/references/heuristic_refs.py --rule SPEC --ledger PATH [--ledger PATH ...] --refs /work/refs
        [--peers /work/PEERS/bin/python]

prints one JSON line per ledger and reference:
    {"rule": SPEC, "reference": NAME, "stop": int|null, "ledger": PATH, "mode": "aligned"|"native", "checked": TEXT}
`stop` is the number of judgments reviewed when the reference fires (null: it never did on the ledger).

References (read for behaviour, run as they are, never copied into tarsim):
- TARexp 0.1.4 (tarexp/component/stopping.py), run in its own virtualenv (`--peers`, or $TARSIM_PEERS_PYTHON,
  default /work/PEERS/bin/python) by this file in a subprocess: KneeStoppingRule (`knee`), ReviewHalfStoppingRule
  (`reviewhalf`), BatchPrecStoppingRule (`batchprecision:P[:SLACK]`) and Rule2399StoppingRule (`2399` with its
  fixed 1.2 and 2399). A TARexp Ledger is built from tarsim's: documents numbered in review order, one TARexp
  round per tarsim training round (tarsim's first round is TARexp's round 0, the seed set).
- destiny-evidence/stopping-methods (REFS/destiny-evidence+stopping-methods, methods/*.py imported from the path):
  Knee (`knee:RHO`, threshold_ratio = RHO, its other defaults), Method2399 (`2399`, alpha and constant passed),
  BatchPrecision (`batchprecision:P`), HeuristicFixed (`fixed:N`), HeuristicFraction (`fraction:F`); their
  `compute(n_total, labels, ...)` is called with the labels so far. The repository's shared/types.py declares its
  aliases with Python 3.12's `type X = ...` statement; on an older Python it is loaded with those five lines as
  plain assignments (the same aliases), the only change.

Each reference is reported twice where tarsim checks elsewhere than the reference's own loop does:
- mode "native": as the reference runs itself: TARexp's workflow calls checkStopping at the end of each round
  (after it annotated the round: TARexp's Ledger.getAnnotationCounts covers rounds 0..n_rounds-1 and so leaves
  out the round just annotated); destiny's `Method.retrospective` calls compute every 100 judgments (100, 200, ...
  below the number judged).
- mode "aligned": called where tarsim checks the rule: at the end of each training round (tarsim's check_points:
  where the round changes, and the end of an exhausted review) for knee and batchprecision, seeing the round just
  ended; after every judgment for 2399, reviewhalf, fixed and fraction. TARexp's knee then gets one judgment per
  TARexp round, so that its x axis counts judgments as Cormack & Grossman's (and tarsim's) does. destiny's
  batch precision gets the round just ended as its window (batch_size = that round's size).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DESTINY = "destiny-evidence+stopping-methods"
TAREXP = "TARexp 0.1.4"
DEFAULT_PEERS = "/work/PEERS/bin/python"
NATIVE, ALIGNED = "native", "aligned"
RETROSPECTIVE_STEP = 100  # destiny's Method.retrospective default batch_size

# name -> positional parameter names (tarsim's spec grammar: name, name:v1:v2 or name:p=v,q=w)
RULES = {
    "knee": ("rho",),
    "2399": ("alpha", "constant"),
    "reviewhalf": (),
    "batchprecision": ("precision", "slack"),
    "fixed": ("count",),
    "fraction": ("fraction",),
}
DEFAULTS = {"knee": {"rho": "adjusted"}, "2399": {"alpha": 1.2, "constant": 2399.0}, "batchprecision": {"slack": 1}}


class AdapterError(Exception):
    """A rule this adapter has no reference for, or a reference that cannot run: one line, exit status 2."""


def parse_spec(spec: str) -> tuple[str, dict]:
    """A spec's rule name and parameters (tarsim's grammar, for the rules of RULES)."""
    name, _, rest = spec.strip().partition(":")
    if name not in RULES:
        raise AdapterError(f"{spec!r}: no reference in this adapter (it runs {', '.join(RULES)})")
    params = dict(DEFAULTS.get(name, {}))
    if rest:
        if "=" in rest:
            pairs = [part.split("=", 1) for part in rest.split(",")]
        else:
            pairs = list(zip(RULES[name], rest.split(":"), strict=False))
        for key, value in pairs:
            if key not in RULES[name]:
                raise AdapterError(f"{spec!r}: unknown parameter {key!r} of {name}")
            params[key.strip()] = value.strip()
    for key, value in params.items():
        if key == "rho" and str(value).lower() == "adjusted":
            params[key] = None
        elif key in ("slack", "count"):
            params[key] = int(value)
        else:
            params[key] = float(value)
    return name, params


@dataclass
class Review:
    """What the references read of a tarsim ledger: labels in review order, training rounds, collection size."""

    path: str
    labels: np.ndarray  # 1 relevant, 0 not, in review order
    rounds: np.ndarray  # tarsim's training round of each judgment
    n_total: int
    exhausted: bool

    @classmethod
    def read(cls, path: str) -> Review:
        labels, rounds, header, end = [], [], {}, {}
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                kind = record.get("type")
                if kind == "judgment":
                    labels.append(1 if record["label"] > 0 else 0)
                    rounds.append(record["round"])
                elif kind == "header":
                    header = record
                elif kind == "end":
                    end = record
        n_total = int(header["collection_size"])
        exhausted = len(labels) >= n_total or end.get("reason") == "pool exhausted"
        return cls(path, np.array(labels, dtype=np.int64), np.array(rounds), n_total, exhausted)

    def round_ends(self) -> list[int]:
        """Judgment counts at which a training round ends (tarsim's check_points)."""
        ends = [p for p in range(1, len(self.rounds)) if self.rounds[p] != self.rounds[p - 1]]
        if len(self.rounds) and self.exhausted:
            ends.append(len(self.rounds))
        return ends

    def round_sizes(self) -> list[int]:
        """The sizes of tarsim's training rounds, in order (the judgments of each)."""
        changes = [p for p in range(1, len(self.rounds)) if self.rounds[p] != self.rounds[p - 1]]
        return [b - a for a, b in itertools.pairwise([0, *changes, len(self.rounds)]) if b > a]


# ---------------------------------------------------------------- destiny-evidence/stopping-methods (in-process)


def load_destiny(refs: Path) -> dict[str, type]:
    """The destiny methods, imported from the checkout's path. Two things of the checkout need Python 3.12, and
    only these two are worked around on an older Python, leaving the methods' code as it is: shared/types.py's
    `type X = ...` aliases are loaded as plain assignments, and methods/__init__.py (which imports every method,
    quant_ci.py's 3.12 f-strings among them) is not run: each method module is imported alone."""
    root = refs / DESTINY
    if not (root / "methods").is_dir():
        raise AdapterError(f"{root}: destiny-evidence/stopping-methods is absent (give --refs)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if sys.version_info < (3, 12) and "shared.types" not in sys.modules:
        import shared  # the checkout's package (an empty __init__.py)

        source = (root / "shared" / "types.py").read_text(encoding="utf-8")
        plain = "\n".join(line[5:] if line.startswith("type ") else line for line in source.splitlines())
        module = types.ModuleType("shared.types")
        module.__file__ = str(root / "shared" / "types.py")
        exec(compile(plain, module.__file__, "exec"), module.__dict__)
        sys.modules["shared.types"] = module
        shared.types = module
    if sys.version_info < (3, 12) and "methods" not in sys.modules:
        package = types.ModuleType("methods")
        package.__path__ = [str(root / "methods")]
        sys.modules["methods"] = package
    from methods.batchprecision import BatchPrecision
    from methods.heuristic_fixed import HeuristicFixed
    from methods.heuristic_fractions import HeuristicFraction
    from methods.knee import Knee
    from methods.method2399 import Method2399

    return {
        "knee": Knee,
        "2399": Method2399,
        "batchprecision": BatchPrecision,
        "fixed": HeuristicFixed,
        "fraction": HeuristicFraction,
    }


def destiny_params(name: str, params: dict) -> dict | None:
    """The destiny method's keyword arguments for a tarsim spec (None: no destiny counterpart of these params)."""
    if name == "knee":
        return None if params["rho"] is None else {"threshold_ratio": params["rho"]}
    if name == "2399":
        return {"alpha": params["alpha"], "constant": params["constant"]}
    if name == "batchprecision":
        return None if params["slack"] != 1 else {"threshold": params["precision"]}
    if name == "fixed":
        return {"num_to_stop": params["count"]}
    if name == "fraction":
        return {"fraction": params["fraction"]}
    return None


def destiny_stops(method: type, name: str, kwargs: dict, review: Review) -> list[dict]:
    """destiny's stop, aligned (at tarsim's check points) and native (its retrospective loop)."""
    labels, n_total, rows = review.labels, review.n_total, []
    if name in ("knee", "batchprecision"):
        checks, checked = review.round_ends(), "tarsim's round ends"
    else:
        checks, checked = range(1, len(labels) + 1), "every judgment"
    stop, start = None, 0
    for end in checks:
        extra = {"batch_size": end - start} if name == "batchprecision" else {}
        if method.compute(n_total=n_total, labels=labels[:end], **kwargs, **extra)["safe_to_stop"]:
            stop = end
            break
        start = end
    window = " (window: the round just ended)" if name == "batchprecision" else ""
    rows.append({"mode": ALIGNED, "stop": stop, "checked": checked + window})
    n = len(labels)
    entries = method.retrospective(
        n_total=n_total,
        labels=labels,
        scores=None,
        is_prioritised=np.ones(n, dtype=bool),
        bounds=np.zeros((n, 2), dtype=np.int64),
        batch_size=RETROSPECTIVE_STEP,
        **kwargs,
    )
    stop = next((RETROSPECTIVE_STEP * (i + 1) for i, entry in enumerate(entries) if entry["safe_to_stop"]), None)
    default = " (its default window, 1000 judgments)" if name == "batchprecision" else ""
    rows.append({"mode": NATIVE, "stop": stop, "checked": f"every {RETROSPECTIVE_STEP} judgments{default}"})
    return rows


# ---------------------------------------------------------------- TARexp 0.1.4 (a subprocess in its virtualenv)


def tarexp_jobs(name: str, params: dict, review: Review) -> list[dict]:
    """The TARexp runs of a spec on one review: each a rule, its rounds of labels and where checkStopping is
    called. `close` appends an empty round before each check so that getAnnotationCounts sees the last round."""
    if name == "knee":
        if params["rho"] is not None:
            return []  # TARexp's KneeStoppingRule has the adjusted threshold only
        rule, kwargs = "KneeStoppingRule", {}
    elif name == "2399":
        if (params["alpha"], params["constant"]) != (1.2, 2399.0):
            return []  # TARexp's Rule2399StoppingRule has 1.2 and 2399 fixed
        rule, kwargs = "Rule2399StoppingRule", {}
    elif name == "reviewhalf":
        rule, kwargs = "ReviewHalfStoppingRule", {}
    elif name == "batchprecision":
        rule, kwargs = "BatchPrecStoppingRule", {"prec_cutoff": params["precision"], "slack": params["slack"]}
    else:
        return []
    sizes = review.round_sizes()
    by_round, start = [], 0
    for size in sizes:
        by_round.append(review.labels[start : start + size].tolist())
        start += size
    native = {
        "mode": NATIVE,
        "n_docs": review.n_total,  # ReviewHalfStoppingRule reads the collection's size
        "rule": rule,
        "kwargs": kwargs,
        "rounds": by_round,
        "checks": list(range(len(by_round))),
        "close": False,
        "checked": "TARexp's workflow: each round's end, the round just annotated left out",
    }
    singles = [[int(label)] for label in review.labels]
    if name in ("2399", "reviewhalf"):
        aligned_rounds, checks, checked = singles, list(range(len(singles))), "every judgment"
    elif name == "knee":
        ends = review.round_ends()
        aligned_rounds, checks = singles, [end - 1 for end in ends]
        checked = "tarsim's round ends, one judgment per TARexp round (x axis: judgments)"
    else:
        aligned_rounds, checks = by_round, list(range(len(by_round)))
        if not review.exhausted:  # tarsim checks no end of an unfinished last round
            checks = checks[:-1]
        checked = "tarsim's round ends, seeing the round just ended"
    aligned = {**native, "mode": ALIGNED, "rounds": aligned_rounds, "checks": checks, "close": True}
    aligned["checked"] = checked
    return [native, aligned]


def run_tarexp(jobs: list[dict], peers: str) -> list[int | None]:
    """Each job's stop, from one TARexp subprocess."""
    if not jobs:
        return []
    if not Path(peers).exists():
        raise AdapterError(f"{peers}: no python with TARexp (give --peers or $TARSIM_PEERS_PYTHON)")
    keys = ("rule", "kwargs", "rounds", "checks", "close", "n_docs")
    payload = json.dumps([{key: job[key] for key in keys} for job in jobs])
    done = subprocess.run(
        [peers, str(Path(__file__).resolve()), "--tarexp-worker"],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise AdapterError(f"TARexp worker failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def tarexp_worker() -> None:
    """Run in TARexp's virtualenv: read jobs on stdin, print their stops (judgments annotated when it fired)."""
    import warnings

    from tarexp.component import stopping
    from tarexp.ledger import Ledger

    warnings.simplefilter("ignore")  # 0/0 precision of empty rounds: TARexp's own arithmetic
    stops = []
    for job in json.load(sys.stdin):
        rule = getattr(stopping, job["rule"])(**job["kwargs"])
        ledger = Ledger(job["n_docs"])  # documents numbered in review order; the unreviewed ones stay unlabelled
        checks, stop, next_id = set(job["checks"]), None, 0
        for index, labels in enumerate(job["rounds"]):
            ids = list(range(next_id, next_id + len(labels)))
            next_id += len(labels)
            ledger.annotate(ids, [float(label) for label in labels])
            if index not in checks:
                continue
            if job["close"]:
                seen = copy.deepcopy(ledger)
                seen.annotate({})  # an empty round: getAnnotationCounts (rounds 0..n_rounds-1) covers every round
            else:
                seen = ledger.freeze()  # as OnePhaseTARWorkflow.isStopped passes it
            if rule.checkStopping(seen):
                stop = next_id
                break
        stops.append(stop)
    json.dump(stops, sys.stdout)


# ---------------------------------------------------------------- main


def rows_for(spec: str, paths: list[str], refs: Path, peers: str) -> list[dict]:
    """Every reference's stop of a spec on each ledger."""
    name, params = parse_spec(spec)
    reviews = [Review.read(path) for path in paths]
    rows: list[dict] = []
    jobs, owners = [], []
    for review in reviews:
        for job in tarexp_jobs(name, params, review):
            jobs.append(job)
            owners.append(review.path)
    for job, stop, owner in zip(jobs, run_tarexp(jobs, peers), owners, strict=True):
        rows.append(
            {
                "rule": spec,
                "reference": f"{TAREXP} {job['rule']}",
                "stop": stop,
                "ledger": owner,
                "mode": job["mode"],
                "checked": job["checked"],
            }
        )
    kwargs = destiny_params(name, params)
    if kwargs is not None:
        method = load_destiny(refs)[name]
        for review in reviews:
            for row in destiny_stops(method, name, kwargs, review):
                rows.append({"rule": spec, "reference": f"{DESTINY} {method.__name__}", "ledger": review.path, **row})
    if not rows:
        raise AdapterError(f"{spec!r}: no reference implements these parameters")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule", help="a tarsim stopping spec: knee, knee:6, 2399, reviewhalf, batchprecision:P, ...")
    parser.add_argument("--ledger", action="append", default=[], help="a tarsim ledger (repeat for several)")
    parser.add_argument("--refs", type=Path, default=Path("/work/refs"), help="folder of reference checkouts")
    parser.add_argument("--peers", default=os.environ.get("TARSIM_PEERS_PYTHON", DEFAULT_PEERS))
    parser.add_argument("--tarexp-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tarexp_worker:
        tarexp_worker()
        return 0
    if not args.rule or not args.ledger:
        parser.error("--rule and --ledger are required")
    try:
        rows = rows_for(args.rule, args.ledger, args.refs, args.peers)
    except AdapterError as exc:
        print(f"heuristic_refs: {exc}", file=sys.stderr)
        return 2
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
