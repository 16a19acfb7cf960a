"""Run the REFERENCE implementation of `scal`, `autostop` or `chao` on a tarsim ledger and print its stop.

    python benchmarks/references/sampling_refs.py --rule SPEC --ledger PATH --refs /work/refs [--collection DIR]

prints `{"rule": SPEC, "reference": NAME, "stop": int|null}`. The references are imported from the --refs
checkouts (never vendored); none of them can run on a CAL ledger as-is, so each is driven on the ledger's inputs
at tarsim's check points (rules.check_points: the end of each training round), with the same random draws:

- scal: destiny-evidence/stopping-methods' `SCAL.compute` (methods/scal.py), called at each check point from the
  rule's min_reviewed on with the labels so far and, as `scores`, each reviewed document's score when it was
  selected (the score log's round in force then). `np.random` is seeded before each call as tarsim seeds the
  check's subsample. Its `shared.types` is replaced by plain aliases: it uses Python 3.12 `type` statements.
- autostop: dli1/auto-stop-tar's samplers and estimators (tar_framework/sampling_estimating.py:
  HT/HH x AP-prior/power-law/mixture/uniform), driven as its `autostop_method` loop drives them (sample size
  1, then n += ceil(n / 10); `sample(t, ranked_dids, n, condition)`, `estimate(t, condition, sampled_state)`)
  with the ranking of the score log's latest round at each check point instead of its own ranker, `np.random`
  seeded as tarsim seeds the rule's stream; "found" is dli1's running_true_r, the relevant documents sampled
  (found=all adds those the reviewer labelled relevant).
- chao: mpbron/allib's estimators (allib/estimation/mhmodel.py: BiasFallbackVariance for chao1987, Chao2006)
  and stop criteria (allib/stopcriterion/estimation.py: Conservative for bound=upper, Optimistic for
  bound=point) called through stand-in learners, one per training round, whose labelled sets are the round's
  captures (computed here from the ledger and score log: the batch, and the earlier-judged documents its model
  scores at or above the batch's lowest score). allib's other modules (learners, instancelib, R) are stubbed.

The collection (docids and qrels, needed by autostop and chao) is --collection, else
../shared/datasets/srd/<topic> beside the repository.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import math
import sys
import types
import typing
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from tarsim.data.ledger import read_ledger  # noqa: E402
from tarsim.data.score_log import logged_scores  # noqa: E402
from tarsim.stopping import parse_stopping_rule  # noqa: E402
from tarsim.stopping.rules import check_points  # noqa: E402


def stream(ledger, name: str) -> list[int]:
    """The rule's seed: review seed, crc32(topic), crc32(stream name) (tarsim.stopping.sampling_checks)."""
    seed = int(ledger.header.get("seed", 0)) % 2**32
    return [seed, zlib.crc32(ledger.topic.encode("utf-8")), zlib.crc32(name.encode("utf-8"))]


def load_file(name: str, path: Path, package: str | None = None) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if package is not None:
        module.__package__ = package
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_collection(ledger, given: str | None):
    from tarsim.datasets import load_dataset

    folder = Path(given) if given else ROOT.parent / "shared" / "datasets" / "srd" / ledger.topic
    dataset = load_dataset(str(folder))
    return list(dataset.collection.docids), dataset.qrels.get(ledger.topic, {})


# ---- SCAL: destiny-evidence ----------------------------------------------------------------------------------
def run_scal(rule, ledger, refs: Path, docids: list[str] | None) -> int | None:
    root = refs / "destiny-evidence+stopping-methods"
    types_stub = types.ModuleType("shared.types")
    for alias in ("BatchBounds", "Bounds", "Scores", "BinaryScores", "Labels", "Sampling"):
        setattr(types_stub, alias, np.ndarray)
    for alias in ("StrList", "IntList", "FloatList", "Indices", "Mask"):
        setattr(types_stub, alias, list)
    package = types.ModuleType("shared")
    package.__path__ = [str(root / "shared")]
    sys.modules.update({"shared": package, "shared.types": types_stub})
    load_file("shared.method", root / "shared" / "method.py", "shared")
    scal = load_file("destiny_scal", root / "methods" / "scal.py").SCAL
    labels = (np.asarray(ledger.label) > 0).astype(np.int64)
    scores = selection_scores(ledger, logged_scores(ledger), docids)
    for judged in check_points(ledger):
        if judged < rule.min_reviewed:
            continue
        np.random.seed([*stream(ledger, "scal"), judged])
        entry = scal.compute(
            n_total=ledger.collection_size,
            labels=labels[:judged],
            scores=scores,
            recall_target=rule.target,
            sample_size=rule.subsample,
            bias=rule.bias,
        )
        if entry["safe_to_stop"]:
            return judged
    return None


def selection_scores(ledger, log, docids: list[str] | None) -> np.ndarray:
    """destiny-evidence's `scores`: each reviewed document's score when it was selected, in review order (the
    negated review order when the review logged no scores: SCAL's estimate does not depend on them, see
    tarsim.stopping.scal)."""
    if log is None or docids is None:
        return -np.arange(len(ledger), dtype=np.float64)
    position = {d: i for i, d in enumerate(docids)}
    values = []
    for index, docid in enumerate(ledger.docids):
        round_ = log.at(index)
        values.append(np.nan if round_ is None else float(round_.scores[position[docid]]))
    return np.array(values)


# ---- AutoStop: dli1 --------------------------------------------------------------------------------------------
def run_autostop(rule, ledger, refs: Path, docids: list[str], qrels: dict) -> int | None:
    sys.path.insert(0, str(refs / "dli1+auto-stop-tar"))
    import logging

    from autostop.tar_framework import sampling_estimating as se

    logging.disable(logging.INFO)
    labels = [int(qrels.get(d, 0) > 0) for d in docids]
    did2label = dict(zip(docids, labels, strict=True))
    family = "HT" if rule.estimator == "ht" else "HH"
    kind = {"approprior": "APPrior", "powerlaw": "PowerLaw", "uniform": "Uniform", "mixture": "MixtureUniform"}
    sampler = getattr(se, f"{family}{kind[rule.sampler]}Sampler")()
    if family == "HT":
        if rule.sampler == "powerlaw":
            sampler.init(rule.beta, docids, labels)
        else:
            sampler.init(docids, labels)
    else:
        sampler.init(len(docids), did2label)
    if rule.sampler == "powerlaw":
        sampler.update_distribution(beta=rule.beta)
    elif rule.sampler != "mixture":
        sampler.update_distribution()
    np.random.seed(stream(ledger, "autostop"))
    log = logged_scores(ledger)
    state: dict[str, bool] = defaultdict(bool)
    reviewed_relevant: set[str] = set()
    t, batch, reviewed = 0, 1, 0
    for judged in check_points(ledger):
        for docid, label in zip(ledger.docids[reviewed:judged], ledger.label[reviewed:judged], strict=True):
            if label > 0:
                reviewed_relevant.add(docid)
        reviewed = judged
        round_ = log.at(judged)
        if round_ is None:
            continue
        t += 1
        ranked = [docids[i] for i in np.argsort(-round_.scores, kind="stable")]
        if rule.sampler == "mixture":
            sampler.update_distribution(epsilon=rule.epsilon, alpha=batch)
        for docid in sampler.sample(t, ranked, batch, rule.condition):
            state[docid] = True
        total, var1, var2 = sampler.estimate(t, rule.condition, state)
        batch += math.ceil(batch / 10)
        sampled_relevant = {d for d, s in state.items() if s and did2label[d]}
        if not sampled_relevant:  # dli1: `if running_true_r > 0`
            continue
        found = len(sampled_relevant) if rule.found == "sample" else len(reviewed_relevant | sampled_relevant)
        if rule.condition == "loose":
            stop = found >= rule.target * total
        else:
            variance = var1 if rule.condition == "strict1" else var2
            stop = found >= rule.target * (total + rule.nstd * np.sqrt(variance))
        if stop:
            return judged
    return None


# ---- Chao: allib -----------------------------------------------------------------------------------------------
class _Stub(types.ModuleType):
    """A stand-in for an allib (or instancelib) module the estimators do not use: any name is a class."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if len(name) <= 3 and name.isupper():
            value = typing.TypeVar(name)
        elif name == "value_map":
            value = lambda f, d: {k: f(v) for k, v in d.items()}  # noqa: E731
        elif name == "all_equal":
            value = lambda xs: len(set(xs)) <= 1  # noqa: E731
        elif name == "Self":
            value = typing.Any
        elif name == "Callable":
            value = typing.Callable
        else:
            value = type(name, (), {"__class_getitem__": classmethod(lambda cls, item: cls)})
        setattr(self, name, value)
        return value


class _StubFinder:
    """Imports allib's real estimation/mhmodel, estimation/base and stopcriterion/estimation, stubs the rest."""

    def __init__(self, allib: Path) -> None:
        self.allib = allib
        self.stub_typing_extensions = importlib.util.find_spec("typing_extensions") is None
        self.real = {
            "allib.estimation.base": allib / "estimation" / "base.py",
            "allib.estimation.mhmodel": allib / "estimation" / "mhmodel.py",
            "allib.stopcriterion.estimation": allib / "stopcriterion" / "estimation.py",
        }

    def find_spec(self, name, path=None, target=None):
        stubbed = name == "instancelib" or name.startswith(("allib", "instancelib."))
        if not stubbed and not (name == "typing_extensions" and self.stub_typing_extensions):
            return None
        if name in self.real:
            return importlib.util.spec_from_file_location(name, self.real[name])
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = _Stub(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


def run_chao(rule, ledger, refs: Path, docids: list[str]) -> int | None:
    sys.meta_path.insert(0, _StubFinder(refs / "mpbron+allib" / "allib"))
    stub_estimator = importlib.import_module("allib.activelearning.estimator")
    mhmodel = importlib.import_module("allib.estimation.mhmodel")
    criteria = importlib.import_module("allib.stopcriterion.estimation")

    calculator_class = mhmodel.BiasFallbackVariance if rule.estimator == "chao1987" else mhmodel.Chao2006
    criterion_class = criteria.Conservative if rule.bound == "upper" else criteria.Optimistic

    class Labels:
        def __init__(self, relevant):
            self.relevant = relevant

        def document_count(self, label):
            return len(self.relevant)

        def get_instances_by_label(self, label):
            return self.relevant

    class Env:
        def __init__(self, labeled, labels=None, size=0):
            self.labeled, self.labels, self.dataset = labeled, labels, range(size)

    class Member:
        def __init__(self, labeled):
            self.env = Env(labeled)

    class Ensemble(stub_estimator.Estimator):
        def __init__(self, env, learners):
            self.env, self.learners = env, learners

    position = {d: i for i, d in enumerate(docids)}
    log = logged_scores(ledger)
    z = float(__import__("scipy.stats").stats.norm.ppf(0.5 + rule.confidence / 2))
    calculator = calculator_class(qZ=z)
    criterion = criterion_class(calculator, 1, rule.target)
    criterion.min_read_docs = rule.min_reviewed
    captures: list[set[str]] = []
    relevant: list[str] = []
    start = 0
    for end in check_points(ledger):
        earlier = list(relevant)
        batch = ledger.docids[start:end]
        for docid, label in zip(batch, ledger.label[start:end], strict=True):
            if label > 0 and docid not in relevant:
                relevant.append(docid)
        catch = {d for d, label in zip(batch, ledger.label[start:end], strict=True) if label > 0}
        round_ = log.at(start)
        if round_ is not None and earlier:
            cutoff = min(round_.scores[position[d]] for d in batch)
            catch |= {d for d in earlier if round_.scores[position[d]] >= cutoff}
        captures.append(catch)
        start = end
        labeled_all = set(ledger.docids[:end])
        env = Env(labeled_all, Labels(frozenset(relevant)), ledger.collection_size)
        ensemble = Ensemble(env, [Member(c) for c in captures])
        if not relevant or len(captures) < 2 or end < rule.min_reviewed:
            continue  # allib's fstats need two occasions (its ensembles have five); it checks from min_read_docs
        criterion.update(ensemble)
        if criterion.stop_criterion:
            return end
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", required=True, help="a scal, autostop or chao spec")
    parser.add_argument("--ledger", required=True, help="a ledger written with --log-scores")
    parser.add_argument("--refs", required=True, help="the folder holding the reference checkouts")
    parser.add_argument("--collection", help="the collection folder (default ../shared/datasets/srd/<topic>)")
    args = parser.parse_args(argv)
    rule = parse_stopping_rule(args.rule)
    ledger = read_ledger(args.ledger)
    refs = Path(args.refs)
    if rule.name == "scal":
        docids = load_collection(ledger, args.collection)[0] if logged_scores(ledger) is not None else None
        name = "destiny-evidence/stopping-methods methods/scal.py SCAL.compute"
        stop = run_scal(rule, ledger, refs, docids)
    elif rule.name == "autostop":
        docids, qrels = load_collection(ledger, args.collection)
        stop, name = run_autostop(rule, ledger, refs, docids, qrels), "dli1/auto-stop-tar sampling_estimating"
    elif rule.name == "chao":
        docids, _ = load_collection(ledger, args.collection)
        stop, name = run_chao(rule, ledger, refs, docids), "mpbron/allib mhmodel + stopcriterion.estimation"
    else:
        parser.error(f"--rule {args.rule!r}: this script runs the references of scal, autostop and chao")
    print(json.dumps({"rule": args.rule, "reference": name, "stop": stop}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
