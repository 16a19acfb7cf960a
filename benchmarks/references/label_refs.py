"""Where the REFERENCE implementation of a label-based stopping rule stops on a tarsim ledger.

    python benchmarks/references/label_refs.py --rule SPEC --ledger PATH --refs /work/refs [--collection DIR]

prints `{"rule": SPEC, "reference": NAME, "stop": int|null}` (a line for each --rule, which may be repeated): the
number of judgments reviewed when the reference first says stop, asked at the check points tarsim's rule is asked at
(the end of each training round, read from the ledger's `round` column, and the ledger's end when the pool was
exhausted). SPEC is tarsim's spec of the rule:

- `cmh[:target=T,confidence=C]`: TARexp 0.1.4's CHMHeuristicsStoppingRule(target_recall=T, alpha=1 - C), asked
  with the review's rounds annotated into a tarexp Ledger (run with /work/PEERS/bin/python, which has TARexp);
- `buscar[:target=T,confidence=C,bias=B]`: buscarpy's calculate_h0 (REFS/mcallaghan+buscarpy), p < 1 - C;
- `ipp[:target=T,confidence=C,windows=W]`, `curvefit[:...]`: destiny-evidence/stopping-methods' PointProcess and
  CurveFitting `compute` (REFS/destiny-evidence+stopping-methods/methods), safe_to_stop;
- `qbcb[:target=T,confidence=C,positives=R]` (needs --collection): destiny's TargetQBCB's required_overlap j, on
  tarsim's own random sample (the target method's draw, loaded from this checkout's src/tarsim/stopping/target.py,
  since destiny draws its sample from its own generator): stop when the review has presented j of its positives.

The references' code is imported from --refs, never copied. Two adapters: destiny's shared/types.py uses Python
3.12 syntax, so a stand-in module with the same names is put in its place (shared/method.py itself is the real
one); buscarpy imports matplotlib at the top, for plots only, so an empty stand-in is used when it is missing.
The script re-runs itself with --python (default /work/PEERS/bin/python) when the running Python lacks TARexp
(cmh) or pandas (buscar). Reads the ledger itself (JSON lines, optionally gzipped): no tarsim import.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import logging
import os
import sys
import types
import typing
import warnings
from pathlib import Path

import numpy as np

PEERS_PYTHON = "/work/PEERS/bin/python"
REPO = Path(__file__).resolve().parents[2]
DEFAULTS = {
    "cmh": {"target": 0.95, "confidence": 0.95},
    "buscar": {"target": 0.95, "confidence": 0.95, "bias": 1.0},
    "ipp": {"target": 0.95, "confidence": 0.95, "windows": 10},
    "curvefit": {"target": 0.95, "confidence": 0.95, "windows": 10},
    "qbcb": {"target": 0.95, "confidence": 0.95, "positives": 50},
}
NEEDS = {"cmh": "tarexp", "buscar": "pandas"}


def parse_spec(spec: str) -> tuple[str, dict]:
    """tarsim's spec grammar for these rules: `name`, `name:v1:v2` (in declared order) or `name:p=v,q=w`."""
    name, _, rest = spec.partition(":")
    if name not in DEFAULTS:
        raise SystemExit(f"label_refs: no reference for rule {name!r} (one of {', '.join(DEFAULTS)})")
    params = dict(DEFAULTS[name])
    order = list(params)
    if rest:
        parts = rest.split(",") if "=" in rest else rest.split(":")
        for index, part in enumerate(parts):
            key, value = part.split("=", 1) if "=" in part else (order[index], part)
            params[key.strip()] = type(DEFAULTS[name][key.strip()])(value)
    return name, params


def read_ledger(path: str) -> dict:
    """The header, judgments (docid, label, round) and end record of a tarsim ledger."""
    opener = gzip.open if path.endswith(".gz") else open
    header, end, docids, labels, rounds = {}, {}, [], [], []
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            kind = record.get("type")
            if kind == "header":
                header = record
            elif kind == "judgment":
                docids.append(record["docid"])
                labels.append(1 if record["label"] > 0 else 0)
                rounds.append(record["round"])
            elif kind == "end":
                end = record
    return {"header": header, "end": end, "docids": docids, "labels": np.array(labels, dtype=np.int64),
            "rounds": rounds, "size": int(header["collection_size"])}  # fmt: skip


def check_points(ledger: dict) -> list[int]:
    """Judgment counts at which a round ends; the ledger's end too when the pool was exhausted."""
    rounds = ledger["rounds"]
    points = [p for p in range(1, len(rounds)) if rounds[p] != rounds[p - 1]]
    if rounds and (len(rounds) >= ledger["size"] or ledger["end"].get("reason") == "pool exhausted"):
        points.append(len(rounds))
    return points


def run_cmh(ledger: dict, params: dict, refs: Path) -> tuple[str, int | None]:
    from tarexp.component.stopping import CHMHeuristicsStoppingRule
    from tarexp.ledger import Ledger

    rule = CHMHeuristicsStoppingRule(target_recall=params["target"], alpha=1 - params["confidence"])
    record = Ledger(ledger["size"])
    index: dict[str, int] = {}  # any one-to-one numbering of the docids: the rule reads counts only
    start = 0
    for point in check_points(ledger):
        ids = [index.setdefault(d, len(index)) for d in ledger["docids"][start:point]]
        record.annotate(ids, [int(v) for v in ledger["labels"][start:point]])
        start = point
        if rule.checkStopping(record.freeze()):
            return "TARexp 0.1.4 CHMHeuristicsStoppingRule", point
    return "TARexp 0.1.4 CHMHeuristicsStoppingRule", None


def buscarpy(refs: Path) -> types.ModuleType:
    """buscarpy from REFS; it imports matplotlib for its plots only, so an empty stand-in serves while it is
    imported when matplotlib is missing (and is taken away again: TARexp tells a missing matplotlib apart)."""
    if "buscarpy" in sys.modules:
        return sys.modules["buscarpy"]
    sys.path.insert(0, str(refs / "mcallaghan+buscarpy"))
    stand_in = None
    if importlib.util.find_spec("matplotlib") is None:
        stand_in = types.ModuleType("matplotlib")
        stand_in.pyplot = types.ModuleType("matplotlib.pyplot")
        sys.modules.update({"matplotlib": stand_in, "matplotlib.pyplot": stand_in.pyplot})
    try:
        import buscarpy as module
    finally:
        if stand_in is not None:
            del sys.modules["matplotlib"], sys.modules["matplotlib.pyplot"]
    return module


def run_buscar(ledger: dict, params: dict, refs: Path) -> tuple[str, int | None]:
    calculate_h0 = buscarpy(refs).calculate_h0

    for point in check_points(ledger):
        p = calculate_h0(ledger["labels"][:point], ledger["size"], params["target"], params["bias"])
        if p is not None and p < 1.0 - params["confidence"]:
            return "buscarpy calculate_h0", point
    return "buscarpy calculate_h0", None


def destiny_method(refs: Path, module: str, cls: str):
    """A destiny-evidence/stopping-methods method class, its shared/types.py (Python 3.12 syntax) stood in for."""
    root = refs / "destiny-evidence+stopping-methods"
    if "shared" not in sys.modules:
        shared = types.ModuleType("shared")
        shared.__path__ = [str(root / "shared")]
        stand_in = types.ModuleType("shared.types")
        for alias in ("Bounds", "Scores", "Labels", "Sampling", "BinaryScores", "BatchBounds", "IntList",
                      "FloatList", "StrList", "Indices", "Mask"):  # fmt: skip
            setattr(stand_in, alias, typing.Any)
        sys.modules.update({"shared": shared, "shared.types": stand_in})
    spec = importlib.util.spec_from_file_location(f"destiny_{module}", root / "methods" / f"{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded
    spec.loader.exec_module(loaded)
    return getattr(loaded, cls)


def run_ipp(ledger: dict, params: dict, refs: Path) -> tuple[str, int | None]:
    method = destiny_method(refs, "ipp", "PointProcess")
    for point in check_points(ledger):
        entry = method.compute(n_total=ledger["size"], labels=ledger["labels"][:point], n_windows=params["windows"],
                               recall_target=params["target"], confidence_level=params["confidence"])  # fmt: skip
        if entry["safe_to_stop"]:
            return "destiny-evidence/stopping-methods IPP", point
    return "destiny-evidence/stopping-methods IPP", None


def run_curvefit(ledger: dict, params: dict, refs: Path) -> tuple[str, int | None]:
    method = destiny_method(refs, "curve_fitting", "CurveFitting")
    logging.disable(logging.CRITICAL)  # it logs every failed fit
    for point in check_points(ledger):
        entry = method.compute(n_total=ledger["size"], labels=ledger["labels"][:point], n_windows=params["windows"],
                               recall_target=params["target"], confidence_level=params["confidence"])  # fmt: skip
        if entry["safe_to_stop"]:
            return "destiny-evidence/stopping-methods CURVE_FITTING", point
    return "destiny-evidence/stopping-methods CURVE_FITTING", None


def run_qbcb(ledger: dict, params: dict, refs: Path, collection: str | None) -> tuple[str, int | None]:
    name = "destiny-evidence/stopping-methods TM_QBCB required_overlap, on tarsim's sample"
    if not collection:
        raise SystemExit("label_refs: qbcb needs --collection DIR (its sample is drawn from the collection)")
    method = destiny_method(refs, "tm_qbcb", "TargetQBCB")
    spec = importlib.util.spec_from_file_location("tarsim_target", REPO / "src" / "tarsim" / "stopping" / "target.py")
    target = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = target  # dataclasses look their module up
    spec.loader.exec_module(target)
    folder = Path(collection)
    docs = folder / "docs.jsonl"
    with gzip.open(folder / "docs.jsonl.gz", "rt") if not docs.exists() else open(docs) as handle:
        docids = [json.loads(line)["docid"] for line in handle if line.strip()]
    topic = ledger["header"]["topic"]
    judged: dict[str, int] = {}
    with open(folder / "qrels.txt") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) == 4 and fields[0] == topic:
                judged[fields[2]] = int(fields[3])
    sample = target.draw_target_sample(docids, judged, params["positives"], ledger["header"].get("seed", 0), topic)
    positives = params["positives"]
    if len(sample.targets) < positives:  # destiny: fewer relevant in the collection than the sample needs
        return name, None
    entry = method.compute(n_total=positives, labels=np.zeros(0, dtype=np.int64),
                           full_labels=np.ones(positives, dtype=np.int64), positive_sample_size=positives,
                           confidence_level=params["confidence"], recall_target=params["target"])  # fmt: skip
    needed = int(entry["required_overlap"])
    remaining = set(sample.targets)
    for position, docid in enumerate(ledger["docids"], start=1):
        if docid in remaining:
            remaining.discard(docid)
            if len(sample.targets) - len(remaining) >= needed:
                return name, position
    return name, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", required=True, action="append", help="a rule's spec (repeatable: a line each)")
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--refs", default="/work/refs")
    parser.add_argument(
        "--collection", default=None, help="collection directory (qbcb; default ../shared/datasets/srd/<topic>)"
    )
    parser.add_argument("--python", default=PEERS_PYTHON, help="Python to re-run with when a reference needs it")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the references' fit warnings; they change no result
    rules = [(spec, *parse_spec(spec)) for spec in args.rule]
    for name in {name for _, name, _ in rules}:
        needed = NEEDS.get(name)
        if needed and importlib.util.find_spec(needed) is None:
            other = os.path.realpath(Path(args.python).parent.parent)  # the venv of --python
            if other == os.path.realpath(sys.prefix) or not os.path.exists(args.python):
                raise SystemExit(f"label_refs: {name} needs {needed}, which {args.python} lacks")
            os.execv(args.python, [args.python, __file__, *sys.argv[1:]])
    ledger = read_ledger(args.ledger)
    refs = Path(args.refs)
    runners = {"cmh": run_cmh, "buscar": run_buscar, "ipp": run_ipp, "curvefit": run_curvefit}
    for spec, name, params in rules:
        if name == "qbcb":
            topic = ledger["header"]["topic"]  # default: the srd collection of the ledger's topic, as score_refs does
            collection = args.collection or str(
                Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "srd" / topic
            )
            reference, stop = run_qbcb(ledger, params, refs, collection)
        else:
            reference, stop = runners[name](ledger, params, refs)
        print(json.dumps({"rule": spec, "reference": reference, "stop": stop}), flush=True)


if __name__ == "__main__":
    main()
