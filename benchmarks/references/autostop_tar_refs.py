"""dli1/auto-stop-tar's knee and target methods, run on tarsim's ledgers (issue 27's agreement).

    python benchmarks/references/autostop_tar_refs.py --rule SPEC --ledger PATH [--ledger PATH ...] --refs /work/refs
        [--datasets DIR]

prints one JSON line per ledger and mode:
    {"rule": SPEC, "reference": NAME, "stop": int|null, "ledger": PATH, "mode": "aligned"|"native", "checked": TEXT}
`stop` is the number of judgments reviewed when the reference stops (null: it never did on the ledger).

The references are REFS/dli1+auto-stop-tar/autostop/tar_model/knee.py (`knee_method`, Cormack & Grossman's knee
method with Satopaa et al.'s Kneedle as its knee detector) and target.py (`target_method`), imported from the path
and run as they are: their whole TAR loop, with what the loop reads replaced by tarsim's review (never copied):
- its Assessor by a stand-in that hands out tarsim's review order (the ledger's judgments, in order) as the
  "top assessed" documents of each batch, with their labels (knee: the reviewer's labels in the ledger, as tarsim's
  knee reads; target: the qrels, as the reference's Assessor reads them). When the review has no more documents to
  hand out the stand-in raises, and the reference is reported as never having stopped;
- its Ranker by a stand-in that ranks nothing (the ranking only feeds the stand-in Assessor, which ignores it), and
  autostop.tar_framework.ranking (it imports pyltr, rank_bm25 and nltk, none used here) by an empty module;
- its bookkeeping (the interaction csv, the run file, the AP of each ranking: none read by the stopping test) by
  no-ops writing to os.devnull;
- target.py's sample: `np.random.choice` in the module returns the sample tarsim draws for the review
  (tarsim.stopping.target.draw_target_sample through TargetRule.sample: documents drawn one by one until T relevant
  ones are found), since the two sampling streams differ; the reference's loop then takes it as its target set.

Check points (where the reference's stopping test runs, i.e. the sizes of the batches the stand-in hands out):
- knee, aligned: tarsim's round ends (check_points: BMI's batches 1, 2, ..., +ceil(b / 10), which are also
  knee_method's own batch sizes), with stopping_beta = 149 (the reference stops only when judged > beta: tarsim's
  and Cormack & Grossman's 150-judgment minimum); native: the reference's own batch sizes and its default
  stopping_beta = 100. Both pass stopping_percentage=None (its default 1.0 ends the loop when the collection is
  exhausted, which is not the rule firing). `knee` runs rho='dynamic', `knee:RHO` rho=RHO.
- target, aligned: after every judgment (the stand-in hands out batches of one), as tarsim's rule checks;
  native: the reference's own batches (100, then +ceil(b / 10)).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from tarsim.data.ledger import Ledger, read_ledger  # noqa: E402
from tarsim.datasets import load_dataset  # noqa: E402
from tarsim.stopping import ReplayContext, check_points, parse_stopping_rule  # noqa: E402

REPO = "dli1+auto-stop-tar"
NAME = "dli1/auto-stop-tar"
DATASETS = ROOT.parent / "shared" / "datasets" / "srd"
ALIGNED, NATIVE = "aligned", "native"
KNEE_BETA_ALIGNED = 149  # knee_method stops only when judged > stopping_beta: 149 gives tarsim's s >= 150


class AdapterError(Exception):
    """A rule this adapter has no reference for, or a reference that cannot run: one line, exit status 2."""


class Exhausted(Exception):
    """The review has no more documents to hand out: the reference never stopped on it."""


# ---------------------------------------------------------------- stand-ins for what the loop reads


class Ranker:
    """knee_method's and target_method's Ranker, ranking nothing: the stand-in Assessor ignores the ranking."""

    def __init__(self, *args, **kwargs) -> None:
        self.named: dict[str, list[str]] = {}

    def set_did_2_feature(self, dids, texts, corpus_texts) -> None:
        pass

    def set_features_by_name(self, name, dids) -> None:
        self.named[name] = list(dids)

    def get_features_by_name(self, name):
        return self.named[name]

    def get_feature_by_did(self, dids):
        return list(dids)

    def train(self, features, labels) -> None:
        pass

    def predict(self, features):
        return np.zeros(len(features))


def make_assessor(collection: list[str], order: list[str], label: dict[str, int], sizes: list[int] | None):
    """An Assessor class handing out `order` in batches of `sizes` (None: the size the reference asks for)."""

    class Assessor:
        def __init__(self, *args) -> None:
            self.assessed: list[str] = []
            self.batches = iter(sizes) if sizes is not None else None

        get_complete_dids = staticmethod(lambda: list(collection))
        get_complete_pseudo_dids = staticmethod(lambda: list(collection))
        get_complete_pseudo_texts = staticmethod(lambda: [""] * len(collection))
        get_did2label = staticmethod(lambda: {did: label.get(did, 0) for did in collection})
        get_total_rel_num = staticmethod(lambda: max(1, sum(label.get(did, 0) for did in collection)))
        get_total_doc_num = staticmethod(lambda: len(collection))
        get_rel_label = staticmethod(lambda did: label.get(did, 0))
        get_training_data = staticmethod(lambda temp_doc_num: ([], []))
        assess_state_check_func = staticmethod(lambda: lambda did: False)

        def get_top_assessed_dids(self, ranked_dids, batch_size):
            start = len(self.assessed)
            size = batch_size if self.batches is None else next(self.batches, 0)
            if start >= len(order) or size <= 0:
                raise Exhausted
            return order[start : start + size]

        def update_assess(self, dids) -> None:
            self.assessed.extend(dids)

        def get_assessed_num(self) -> int:
            return len(self.assessed)

        def get_assessed_dids(self) -> list[str]:
            return list(self.assessed)

        def get_assessed_rel_dids(self) -> list[str]:
            return [did for did in self.assessed if label.get(did, 0) == 1]

        def get_assessed_rel_num(self) -> int:
            return sum(1 for did in self.assessed if label.get(did, 0) == 1)

    return Assessor


class NumpyWithSample(types.ModuleType):
    """numpy, except that `random.choice` returns tarsim's sample on its first call (and nothing after: the
    reference's loop draws again only when the sample holds fewer than T relevant, i.e. the whole collection)."""

    def __init__(self, sample: list[str]) -> None:
        super().__init__("numpy")
        draws = iter([np.array(sample, dtype=object)])
        self.random = types.SimpleNamespace(
            seed=lambda *a, **k: None, choice=lambda *a, **k: next(draws, np.array([], dtype=object))
        )

    def __getattr__(self, name):
        return getattr(np, name)


def load(refs: Path) -> tuple[types.ModuleType, types.ModuleType]:
    """knee.py and target.py of the checkout, with the stand-ins in place of what their loops read."""
    root = refs / REPO
    if not (root / "autostop" / "tar_model" / "knee.py").exists():
        raise AdapterError(f"{root}: dli1/auto-stop-tar is absent (give --refs)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if "autostop.tar_framework.ranking" not in sys.modules:
        stand_in = types.ModuleType("autostop.tar_framework.ranking")  # imports pyltr, rank_bm25, nltk: not needed
        stand_in.Ranker = Ranker
        sys.modules["autostop.tar_framework.ranking"] = stand_in
    from autostop.tar_model import knee, target

    logging.getLogger("autostop.tar_framework.utils").setLevel(logging.WARNING)
    for module in (knee, target):
        module.Ranker = Ranker
        module.name_interaction_file = lambda **kwargs: os.devnull
        module.name_tar_run_file = lambda **kwargs: os.devnull
        module.write_tar_run_file = lambda **kwargs: None
        module.calculate_ap = lambda *args, **kwargs: 0.0  # a statistic of the interaction csv only
    return knee, target


def run_loop(method, assessor: type, **kwargs) -> int | None:
    """Run a reference's TAR loop with `assessor`; the judgments handed out when it stopped (None: never)."""
    handed: list[type] = []

    class Tracked(assessor):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            handed.append(self)

    module = sys.modules[method.__module__]
    module.Assessor = Tracked
    try:
        method("srd", "test", "topic", "", "", "", "", **kwargs)
    except Exhausted:
        return None
    return handed[0].get_assessed_num()


# ---------------------------------------------------------------- the rules


def review_order(ledger: Ledger) -> list[str]:
    """The documents in order of first presentation."""
    return list(dict.fromkeys(str(docid) for docid in ledger.docids))


def knee_rows(knee, rule, ledger: Ledger, collection: list[str]) -> list[dict]:
    order = review_order(ledger)
    labels = {}
    for docid, label in zip(ledger.docids, ledger.label, strict=True):
        labels.setdefault(str(docid), 1 if label > 0 else 0)
    rho = "dynamic" if rule.rho is None else rule.rho
    ends = check_points(ledger)
    sizes = [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    rows = []
    for mode, beta, batches, checked in (
        (ALIGNED, KNEE_BETA_ALIGNED, sizes, "tarsim's round ends (knee_method's own batch sizes), judged > 149"),
        (NATIVE, 100, None, "its own batches (1, then +ceil(b / 10)) over tarsim's order, its default judged > 100"),
    ):
        assessor = make_assessor(collection, order, labels, batches)
        stop = run_loop(knee.knee_method, assessor, stopping_beta=beta, stopping_percentage=None, rho=rho)
        rows.append({"mode": mode, "stop": stop, "checked": checked})
    return rows


def target_rows(target, rule, ledger: Ledger, context: ReplayContext) -> list[dict]:
    collection = [str(docid) for docid in context.docids]
    order = review_order(ledger)
    judged = context.qrels.get(ledger.topic, {})
    labels = {str(docid): 1 for docid, grade in judged.items() if grade > 0}
    sample = [str(docid) for docid in rule.sample(ledger, context).sampled]
    rows = []
    for mode, batches, checked in (
        (ALIGNED, [1] * len(order), "every judgment, tarsim's sample as its target set"),
        (NATIVE, None, "its own batches (100, then +ceil(b / 10)), tarsim's sample as its target set"),
    ):
        target.np = NumpyWithSample(sample)
        assessor = make_assessor(collection, order, labels, batches)
        stop = run_loop(target.target_method, assessor, target_rel_num=rule.targets)
        rows.append({"mode": mode, "stop": stop, "checked": checked})
    return rows


def rows_for(spec: str, paths: list[str], refs: Path, datasets: Path) -> list[dict]:
    rule = parse_stopping_rule(spec)
    if rule.name not in ("knee", "target"):
        raise AdapterError(f"{spec!r}: no reference in this adapter (it runs knee and target)")
    knee, target = load(refs)
    collections: dict[str, ReplayContext] = {}
    rows: list[dict] = []
    for path in paths:
        ledger = read_ledger(path)
        name = ledger.header["sweep"]["collection"]
        if name not in collections:
            dataset = load_dataset(datasets / name)
            collections[name] = ReplayContext(docids=dataset.collection.docids, qrels=dataset.qrels)
        context = collections[name]
        if rule.name == "knee":
            found = knee_rows(knee, rule, ledger, [str(docid) for docid in context.docids])
            method = "knee_method"
        else:
            found = target_rows(target, rule, ledger, context)
            method = "target_method"
        rows += [{"rule": spec, "reference": f"{NAME} {method}", "ledger": path, **row} for row in found]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule", required=True, help="knee, knee:RHO or target:T")
    parser.add_argument("--ledger", action="append", required=True, help="a tarsim ledger (repeat for several)")
    parser.add_argument("--refs", type=Path, default=Path("/work/refs"), help="folder of reference checkouts")
    parser.add_argument("--datasets", type=Path, default=DATASETS, help="the srd collections (ledger's collection)")
    args = parser.parse_args(argv)
    try:
        rows = rows_for(args.rule, args.ledger, args.refs, args.datasets)
    except AdapterError as exc:
        print(f"autostop_tar_refs: {exc}", file=sys.stderr)
        return 2
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
