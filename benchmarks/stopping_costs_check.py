"""Cross-check tarsim's two-phase review cost (tarsim.stopping.measures.optimistic_cost, the `two_phase_*` columns
of a stopping study) against TARexp 0.1.4's OptimisticCost (Yang, Lewis & Frieder, DocEng 2021), run in its own
venv on the same cases.

    python benchmarks/stopping_costs_check.py [--tarexp-python /work/PEERS/bin/python] [--cases 400]

Cases: random collections (50 to 3,000 documents, prevalence 0.5% to 30%), a reviewed ("known") set taken from the
top of a noisy ranking, distinct random scores for the rest, every target recall of TARGETS and every cost
structure of STRUCTURES; and, when the built-in demo reviewed with --log-scores is at hand (made here), its real
score rounds at several stops. TARexp scores each case with OptimisticCost.calc_all on the data frame its
`evaluate` builds (relevance, score, known); tarsim with optimistic_cost on the unknown documents ranked by score.

TARexp cuts the second phase where the relevant documents found *exceed* t x R (`cumsum > R * t`): one relevant
document more than "recall >= t" needs when t x R is a whole number. tarsim's measures use recall >= t (as
target_met and the oracle stop do); `exceed=True` reproduces TARexp's cut. The script prints the agreement of both
and exits 1 unless `exceed=True` agrees on every case (to 1e-9).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from tarsim.stopping.measures import optimistic_cost

TARGETS = (0.5, 0.75, 0.8, 0.9, 0.95, 0.99)
STRUCTURES = ((1, 1, 1, 1), (10, 10, 1, 1), (25, 5, 5, 1), (20, 10, 2, 1), (1, 1, 0, 0))

TAREXP_SCRIPT = r"""
import json, sys
import numpy as np, pandas as pd
from tarexp.evaluation import OptimisticCost
cases = json.load(open(sys.argv[1]))
targets, structures = json.load(open(sys.argv[2]))
out = []
for case in cases:
    df = pd.DataFrame({
        "query_id": "0", "iteration": "0",
        "relevance": np.asarray(case["relevance"]).astype(int),
        "score": np.asarray(case["score"], dtype=float),
        "control": False,
        "known": np.asarray(case["known"], dtype=bool),
    })
    measures = [OptimisticCost(target_recall=t, cost_structure=tuple(s)) for t in targets for s in structures]
    result = OptimisticCost.calc_all(measures, df)
    out.append([float(result[m]) for m in measures])
json.dump(out, open(sys.argv[3], "w"))
"""


def random_cases(count: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        size = int(rng.integers(50, 3000))
        prevalence = float(rng.uniform(0.005, 0.3))
        relevance = rng.random(size) < prevalence
        if not relevance.any():
            relevance[int(rng.integers(size))] = True
        noisy = relevance * rng.uniform(0.5, 3.0) + rng.normal(0, 1, size)  # a ranking better than chance
        order = np.argsort(-noisy, kind="stable")
        known = np.zeros(size, dtype=bool)
        known[order[: int(rng.integers(0, size))]] = True
        score = rng.normal(0, 1, size) + relevance * rng.uniform(0, 2)
        cases.append({"relevance": relevance.tolist(), "score": score.tolist(), "known": known.tolist()})
    return cases


def demo_cases(workdir: Path) -> list[dict]:
    """Cases from the built-in demo reviewed with --log-scores: at several stops, the reviewed documents are known
    and the round's scores rank the rest (ties left as they are)."""
    from tarsim.cli import main
    from tarsim.data.ledger import read_ledger
    from tarsim.data.score_log import logged_scores
    from tarsim.datasets.synthetic import demo_dataset

    out = workdir / "demo"
    if main(["simulate", "--out", str(out), "--until", "exhausted", "--log-scores"]) != 0:
        return []
    dataset = demo_dataset()
    docids = list(dataset.collection.docids)
    cases = []
    for path in sorted((out / "ledgers").glob("*.jsonl")):
        ledger = read_ledger(path)
        log = logged_scores(ledger)
        judged = dataset.qrels.get(ledger.topic, {})
        relevance = [judged.get(docid, 0) > 0 for docid in docids]
        position = {docid: index for index, docid in enumerate(docids)}
        for stop in np.linspace(10, len(ledger) - 1, 6).astype(int):
            scores = log.at(int(stop)).scores.astype(np.float64)
            known = np.zeros(len(docids), dtype=bool)
            known[[position[d] for d in ledger.docids[: int(stop)]]] = True
            cases.append({"relevance": relevance, "score": scores.tolist(), "known": known.tolist()})
    return cases


def tarsim_costs(case: dict, exceed: bool) -> list[float]:
    relevance = np.asarray(case["relevance"], dtype=bool)
    score = np.asarray(case["score"], dtype=np.float64)
    known = np.asarray(case["known"], dtype=bool)
    rows = np.flatnonzero(~known)
    ranking = relevance[rows[np.argsort(-score[rows], kind="stable")]]
    positive = int((known & relevance).sum())
    negative = int((known & ~relevance).sum())
    costs = []
    for target in TARGETS:
        for structure in STRUCTURES:
            cost = optimistic_cost(positive, negative, ranking, int(relevance.sum()), target, structure, exceed)
            costs.append(float("nan") if cost is None else cost)
    return costs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tarexp-python", default="/work/PEERS/bin/python")
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--no-demo", action="store_true", help="random cases only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = random_cases(args.cases)
        demo = [] if args.no_demo else demo_cases(work)
        everything = cases + demo
        (work / "cases.json").write_text(json.dumps(everything))
        (work / "grid.json").write_text(json.dumps([list(TARGETS), [list(s) for s in STRUCTURES]]))
        (work / "run.py").write_text(TAREXP_SCRIPT)
        subprocess.run(
            [
                args.tarexp_python,
                str(work / "run.py"),
                *(str(work / n) for n in ("cases.json", "grid.json", "out.json")),
            ],
            check=True,
        )
        reference = np.array(json.loads((work / "out.json").read_text()), dtype=np.float64)
    strict = np.array([tarsim_costs(case, exceed=True) for case in everything])
    reaching = np.array([tarsim_costs(case, exceed=False) for case in everything])
    total = reference.size
    agree_strict = np.isclose(strict, reference, rtol=0, atol=1e-9)
    agree_reaching = np.isclose(reaching, reference, rtol=0, atol=1e-9)
    whole = np.array(
        [[float(t * sum(case["relevance"])).is_integer() for t in TARGETS for _ in STRUCTURES] for case in everything]
    )
    print(f"cases: {len(cases)} random + {len(demo)} from the demo's score rounds; {total} costs")
    print(
        f"exceed=True (TARexp's cut, relevant found > t R): {agree_strict.sum()}/{total} agree "
        f"({agree_strict.mean():.2%}); largest difference {np.nanmax(np.abs(strict - reference)):.3g}"
    )
    print(
        f"exceed=False (tarsim's measures, recall >= t): {agree_reaching.sum()}/{total} agree "
        f"({agree_reaching.mean():.2%}); of the {int((~agree_reaching).sum())} that differ, "
        f"{int((~agree_reaching & whole).sum())} have a whole t x R (TARexp needs one relevant document more)"
    )
    if (~agree_reaching & ~whole).any():
        print("unexplained differences at a fractional t x R:", int((~agree_reaching & ~whole).sum()))
        return 1
    return 0 if agree_strict.all() else 1


if __name__ == "__main__":
    sys.exit(main())
