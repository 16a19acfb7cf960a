"""Do tarsim's stopping rules stop where their reference implementations do, on the same review orders?

    python benchmarks/stopping_agreement.py --refs /work/refs --peers /work/PEERS/bin/python \\
        --out benchmarks/results/stopping_agreement [--work DIR] [--jobs 2] [--only SPEC ...]

Issue 27's "Checked against the references":
1. Reviews: `tarsim sweep benchmarks/stopping_agreement.toml` (14 srd collections x 5 seeds, relevance feedback,
   every collection reviewed to the end, the learner's scores logged) into --work, a folder outside the
   repository (default: TMPDIR/tarsim-stopping-agreement), reused when it already holds every run.
2. tarsim's side: every (spec, adapter) pair of PAIRS below is replayed on every ledger with the public API
   (tarsim.stopping.evaluate_stopping, each ledger read once; docids and qrels of its collection for rules that
   draw a sample).
3. The references' side: each adapter benchmarks/references/NAME.py (found there; absent ones are skipped with a
   note) is run as `python NAME.py --rule SPEC --ledger PATH --refs REFS`, printing one JSON line per reference
   {"rule": SPEC, "reference": NAME, "stop": int|null} (optionally "mode": "aligned"|"native", "checked": TEXT,
   and "ledger": PATH). An adapter that takes `--ledger` repeatedly and names the ledger of each line is given
   every ledger of a spec in one call (tried first); otherwise it is called once per ledger. Adapters get the
   peers' python (TARexp, ASReview) as --peers when they accept it, and always as $TARSIM_PEERS_PYTHON.
4. Agreement per (spec, reference, mode): pairs, agreeing pairs (the same stop, or neither fired), share, and
   every disagreement with its ledger and both stops, in OUT/agreement.json and OUT/agreement.md. "aligned"
   rows call the reference where tarsim checks the rule (issue 27's target: >= 95% agreement); "native" rows run
   it as it runs itself (where the two check at other points on purpose).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "stopping_agreement.toml"
REFERENCES = HERE / "references"
RESULTS = HERE / "results" / "stopping_agreement"
SHARED = HERE.parents[1] / "shared" / "datasets" / "srd"
EXPECTED_RUNS = 14 * 5
TARGET_SHARE = 0.95
TARGETS = (0.95, 0.8)  # target-aware rules are checked at the default target and at 0.8

# (spec, adapter): the specs each adapter is asked about. The heuristics' parameters are the references' defaults:
# TARexp's batch precision 5/200 and destiny's 0.1, destiny's knee threshold 6, 2399's alpha 1.2 (TARexp, Cormack
# & Grossman) and 1.0 (destiny's default), destiny's fixed counts 50 and 100 and fractions 0.05 and 0.1.
PAIRS: list[tuple[str, str]] = [
    ("knee", "heuristic_refs"),
    ("knee:6", "heuristic_refs"),
    ("knee", "autostop_tar_refs"),  # dli1/auto-stop-tar's knee_method (rho 'dynamic', and rho 6)
    ("knee:6", "autostop_tar_refs"),
    ("target:10", "autostop_tar_refs"),  # its target_method (target_rel_num 10), given tarsim's sample
    ("2399", "heuristic_refs"),
    ("2399:alpha=1.0", "heuristic_refs"),
    ("reviewhalf", "heuristic_refs"),
    ("batchprecision:0.025", "heuristic_refs"),
    ("batchprecision:0.1", "heuristic_refs"),
    ("batchprecision:0.025:3", "heuristic_refs"),  # TARexp's slack (destiny has none)
    ("fixed:50", "heuristic_refs"),
    ("fixed:100", "heuristic_refs"),
    ("fraction:0.05", "heuristic_refs"),
    ("fraction:0.1", "heuristic_refs"),
]
# (rule name, adapter): rules written beside this benchmark; their specs come from the registry: `NAME:target=T`
# for T in TARGETS when the rule takes a target recall, else `NAME` (when it needs no parameter).
RULES_BY_NAME: list[tuple[str, str]] = [
    *((name, "label_refs") for name in ("cmh", "buscar", "qbcb", "ipp", "curvefit")),
    *((name, "score_refs") for name in ("quant", "quantci", "apriori", "scores", "salt", "scoredist")),
    *((name, "sampling_refs") for name in ("scal", "autostop", "chao")),
]
# References with no tarsim counterpart yet: listed in the results, not run.
NOT_COMPARED: list[tuple[str, str]] = [
    (
        "TARexp 0.1.4 BudgetStoppingRule",
        "Cormack & Grossman's budget method (stop when the knee's slope ratio reaches 6 and the judgments reach "
        "10 N / relret, or at 75% of the collection) has no tarsim rule: tarsim's `budget:aR+b` is an effort budget "
        "that knows R, as an oracle does",
    ),
]
# Why the stops differ, per (rule name, reference, mode); the disagreements are listed under each row.
_ROUND_END_CHECK = (
    "TARexp's workflow calls checkStopping at the end of each round, so it finishes the round in which the rule's "
    "condition is reached; tarsim checks it after every judgment, as the rule reads. Called after every judgment "
    "(aligned) the two agree on every review."
)
_EVERY_100 = (
    "destiny's `Method.retrospective` calls compute every 100 judgments (100, 200, ... below the number judged, "
    "so never at the last one), so it stops at the first multiple of 100 at which the condition holds: later than "
    "tarsim, or never when it no longer holds there. Called where tarsim checks (aligned), the two agree on every "
    "review."
)
EXPLANATIONS: dict[tuple[str, str, str], str] = {
    ("knee", "TARexp", "aligned"): (
        "TARexp's KneeStoppingRule takes the largest slope ratio over every candidate knee point, max over i of "
        "(relret(i) / i) / ((1 + relret(s) - relret(i)) / (s - i + 1)), where Cormack & Grossman (and tarsim) take "
        "the ratio at the knee, the point farthest above the chord from the origin to (s, relret(s)). The candidate "
        "at the last relevant document, followed by a long run of non-relevant ones, reaches the threshold "
        "156 - min(relret, 150) first: in all 6 disagreements TARexp fires and tarsim never does (e.g. "
        "AtypicalAntipsychotics seed 1 at 1105 judgments: the ratio at the knee (417) is 6.5, TARexp's maximum, at "
        "978, is 18.7 against the threshold 13; a re-computation of TARexp's formula gives the same 6 stops). TARexp "
        "also has no 150-judgment minimum, which changes no stop here. tarsim's adjusted knee fires on none of the "
        "70 reviews (at most 2544 documents, so relret stays low and the threshold high)."
    ),
    ("knee", "TARexp", "native"): (
        "TARexp's knee counts rounds on its x axis (the positives per round, which assumes TARexp's fixed batches); "
        "with BMI's growing batches the last rounds hold many judgments each, so the ratio per round stays below the "
        "threshold and neither fires on any review: the agreement is vacuous. Its checkStopping also sees every "
        "round but the one just annotated (see batchprecision)."
    ),
    ("knee", "destiny", "aligned"): (
        "destiny's Knee is another algorithm under the same name: it smooths the gain curve (by default a Gaussian "
        "of sigma min(500, judged)), rescales it to [0, 1], takes the knee where it is farthest above the diagonal, "
        "and compares y(knee) / (1 - y(knee)), the rises before and after the knee not divided by their runs, with "
        "threshold_ratio (strictly); it refuses when fewer than 50 judgments (or 5%) follow the knee or the largest "
        "distance is below 0.3. With its defaults it fires on none of the 70 reviews (the smoothing flattens the "
        "curve: on ACEInhibitors seed 0 its largest ratio over all checks is 5.76 < 6), while tarsim's `knee:6` (the "
        "paper's slope ratio on the raw curve, threshold 6) fires on 59. The rules differ by design; tarsim follows "
        "Cormack & Grossman, not this variant."
    ),
    ("knee", "auto-stop-tar", "aligned"): (
        "auto-stop-tar's knee_method finds its knee with Satopaa et al.'s Kneedle (detect_knee) on the gain curve "
        "sampled at its batch ends only (each point averaged with the one before it, min-max scaled, local maxima of "
        "y - x; its flatness step is 0 here, as it subtracts the raw first x, 1 judgment, from the scaled last x, 1) "
        "and takes the last knee found, where Cormack & Grossman (and tarsim) take the judgment farthest above the "
        "chord from the origin; the slope ratio at the knee is the same formula, compared strictly (> rho; tarsim "
        ">=). `knee` (rho 'dynamic'): neither fires on any review. The reference's dynamic threshold is set once, at "
        "the first check that finds a knee (156 - relret there: 120 to 155 on these reviews), and then kept (`rho` "
        "is overwritten by the number); recomputed at every check it would fire on none either. `knee:6`: in all 29 "
        "disagreements the two knees are different points. In 24 tarsim fires first, where the reference's knee (a "
        "batch end) gives a ratio below 6 (e.g. Opiods seeds 0, 1, 4 at 302: tarsim's knee at 80 gives 6.94, the "
        "reference's at 94 gives 5.53, and it fires one round later, at 343, as in 14 of the 24); in 4 only tarsim "
        "fires (AtypicalAntipsychotics seeds 0 and 3 at 1105: the reference's knee gives 5.96 and 5.98); in 1 only "
        "the reference (Antihistamines seed 0 at 310: its later knee, at 202, gives 8.55 where tarsim's, at 113, "
        "gives 5.67). The strict comparison moves one reference stop (Kitchenham seed 3: ratio exactly 6 at 560, so "
        "it fires at 630), still after tarsim's 497. A recomputation of the reference's arithmetic with its "
        "detect_knee gives the same stops."
    ),
    ("knee", "auto-stop-tar", "native"): (
        "knee_method's own batch sizes (1, 2, ..., then +ceil(b / 10)) are BMI's, so it checks at tarsim's round ends "
        "as in the aligned row; natively it stops after more than stopping_beta = 100 judgments (its default) rather "
        "than 150, which moves two `knee:6` stops earlier than tarsim's, ADHD seeds 0 and 1 (111 and 130, where "
        "tarsim waits and fires at 151 and 175); the other disagreements are the aligned row's."
    ),
    ("target", "auto-stop-tar", "aligned"): (
        "Given tarsim's sample as its target set (the reference draws 100 documents at a time until it holds 10 "
        "relevant ones, tarsim one at a time), auto-stop-tar's target_method stops when every relevant document of "
        "the target set has been assessed, as tarsim does, or when the documents assessed and the target set together "
        "cover the collection (`sampled_num >= total_num`: it counts the sample's documents as judged). The latter "
        "makes all 6 disagreements: SkeletalMuscleRelaxants has 9 relevant documents (fewer than 10), so the sample "
        "is the whole collection (1643 documents) and the reference stops at its first check, after 1 judgment, "
        "where tarsim reviews until the last of the 9 is presented (1373; the sample's judgments are charged as "
        "effort either way); on OralHypoglycemics seed 2 the review's last document (the 503rd), a target, is in the "
        "sample, so the reference stops at 502 and tarsim at 503, when that target is presented. tarsim measures "
        "recall on the reviewed documents only, so it stops only when the review itself has presented every target; "
        "the reference's run file counts the target set as shown."
    ),
    ("target", "auto-stop-tar", "native"): (
        "The reference checks after each of its own batches (100, then +ceil(b / 10): at 100, 210, 331, 465, 613, "
        "776, 956, 1154, 1372, 1612, 1876, 2167, 2488 judgments, or the collection's end), tarsim after every "
        "judgment: on 64 reviews the reference stops at the end of its batch holding tarsim's stop; on "
        "SkeletalMuscleRelaxants it stops after its first batch (100; the sample is the whole collection, see "
        "aligned); they agree on OralHypoglycemics seed 2 (503, the collection's end)."
    ),
    ("2399", "TARexp", "native"): _ROUND_END_CHECK
    + " The rule fires only on ACEInhibitors (2544 documents: 1.2 r + 2399 is reached at 2449, inside the last BMI "
    "round, which ends at 2544); on the 13 smaller collections (at most 2072 documents) neither fires.",
    ("2399", "destiny", "native"): _EVERY_100
    + " The rule fires only on ACEInhibitors (at 2449 with alpha 1.2, 2440 with 1.0; destiny's loop at 2500).",
    ("reviewhalf", "TARexp", "native"): _ROUND_END_CHECK
    + " TARexp's ReviewHalfStoppingRule tests n_annotated >= n_docs // 2 at a round's end and so finishes the BMI "
    "round that crosses N / 2 (tarsim's docstring says so); the two agree where a round ends exactly at N // 2.",
    ("batchprecision", "TARexp", "native"): (
        "An off-by-one in TARexp 0.1.4: Ledger.getAnnotationCounts returns rounds 0 .. n_rounds - 1 while the rounds "
        "are numbered 0 .. n_rounds, so checkStopping never sees the round just annotated, and the precision of "
        "round k is first seen at the end of round k + 1: TARexp stops one round after tarsim, or never when tarsim "
        "stops at the review's last round (TARexp's workflow ends there, its last round unseen). "
        "Called with an empty round appended, so that it sees the round just ended (aligned), it agrees with tarsim "
        "on every review. Note that with BMI's first rounds of 1, 2, 3 judgments a round without a relevant "
        "judgment has precision 0, so batch precision (slack 1) stops at the first such round: after 1 judgment on "
        "most srd reviews; it was designed for TARexp's fixed batches of 200."
    ),
    ("batchprecision", "destiny", "native"): (
        "Another rule under the same name: destiny's BatchPrecision slides a window of the last batch_size "
        "judgments (default 1000), checked every 100 judgments, and stops when its precision is strictly below the "
        "threshold; tarsim's rule (TARexp's) takes the precision of each training round and stops at <= P. On the "
        "collections below 1100 documents the window is never full, so it never fires. Given tarsim's round just "
        "ended as its window, at tarsim's round ends (aligned), it agrees on every review (no round up to the stop "
        "had a precision of exactly P, where destiny's strict < and TARexp's <= would part)."
    ),
    ("fixed", "destiny", "native"): _EVERY_100
    + " Both stop at the first judgment when it is non-relevant (the window is min(N, judged) labels).",
    ("fraction", "destiny", "native"): _EVERY_100
    + " Both stop at the first judgment when it is non-relevant (the window is min(floor(F N), judged) labels).",
}
ROUND_ENDS: dict[str, list[int]] = {}  # run -> the judgment counts at which its training rounds end


def cause(run: str, ours: int | None, theirs: int | None) -> str:
    """A disagreement in a few words: who fired, and where the reference's stop falls against tarsim's rounds."""
    if ours is None:
        return "only the reference fired"
    if theirs is None:
        return "only tarsim fired"
    ends = ROUND_ENDS.get(run, [])
    after = [end for end in ends if end >= ours]
    if ours not in ends and after and theirs == after[0]:
        return "reference: the end of the round holding tarsim's stop"
    if ours in ends and len(after) > 1 and theirs == after[1]:
        return "reference: one round later"
    way = "later" if theirs > ours else "earlier"
    hundred = " (a multiple of 100)" if theirs % 100 == 0 else ""
    return f"reference {way}{hundred}"


@dataclass
class Row:
    """One (spec, reference, mode) comparison: each ledger's stop by tarsim and by the reference."""

    spec: str
    adapter: str
    reference: str
    mode: str
    checked: str = ""
    stops: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)  # run -> (tarsim, reference)

    def summary(self) -> dict:
        pairs = len(self.stops)
        agreeing = sum(1 for ours, theirs in self.stops.values() if ours == theirs)
        never = sum(1 for ours, theirs in self.stops.values() if ours is None and theirs is None)
        disagreements = [
            {"run": run, "tarsim": ours, "reference": theirs, "cause": cause(run, ours, theirs)}
            for run, (ours, theirs) in sorted(self.stops.items())
            if ours != theirs
        ]
        causes: dict[str, int] = {}
        for item in disagreements:
            causes[item["cause"]] = causes.get(item["cause"], 0) + 1
        return {
            "spec": self.spec,
            "adapter": self.adapter,
            "reference": self.reference,
            "mode": self.mode,
            "checked": self.checked,
            "pairs": pairs,
            "agreeing": agreeing,
            "share": round(agreeing / pairs, 4) if pairs else None,
            "neither_fired": never,
            "tarsim_fired": sum(1 for ours, _ in self.stops.values() if ours is not None),
            "reference_fired": sum(1 for _, theirs in self.stops.values() if theirs is not None),
            "causes": causes,
            "explanation": explanation(self.spec, self.reference, self.mode, fallback=bool(disagreements)),
            "tarsim_median_stop": _median([ours for ours, _ in self.stops.values() if ours is not None]),
            "disagreements": disagreements,
            "stops": {run: list(pair) for run, pair in sorted(self.stops.items())},
        }


def _median(values: list[int]) -> float | None:
    values = sorted(values)
    if not values:
        return None
    middle = len(values) // 2
    return float(values[middle]) if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def explanation(spec: str, reference: str, mode: str, fallback: bool) -> str:
    """The explanation of a row: its own, else (`fallback`, for a row with disagreements) its rule and reference's
    in the other mode, which names the same cause."""
    name = spec.split(":", 1)[0]
    found = {how: text for (rule, ref, how), text in EXPLANATIONS.items() if rule == name and ref in reference}
    return found.get(mode) or (next(iter(found.values()), "") if fallback else "")


# ---------------------------------------------------------------- the reviews


def run_id(path: Path) -> str:
    """A ledger's short name in the tables: collection and seed."""
    stem = path.stem
    collection = stem.split("__", 1)[0]
    seed = stem.rsplit("__", 1)[-1]
    return f"{collection} {seed}"


def sweep(work: Path, jobs: int) -> dict:
    """Make the ledgers (or reuse those in `work`); how long the sweep took."""
    ledgers = sorted((work / "ledgers").glob("*.jsonl"))
    timing_file = work / "agreement_sweep.json"
    if len(ledgers) >= EXPECTED_RUNS and timing_file.exists():
        return {**json.loads(timing_file.read_text(encoding="utf-8")), "reused": True}
    if not SHARED.exists():
        raise SystemExit(f"{SHARED} is absent: the srd collections sit in ../shared/datasets beside the checkout")
    command = ["tarsim", "sweep", str(CONFIG), "--jobs", str(jobs), "--out", str(work), "--resume"]
    print("$", " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True)
    timing = {"runs": len(sorted((work / "ledgers").glob("*.jsonl"))), "jobs": jobs}
    timing["wall_seconds"] = round(time.perf_counter() - started, 1)
    timing["resumed_from"] = len(ledgers)
    timing_file.write_text(json.dumps(timing, indent=2) + "\n", encoding="utf-8")
    return {**timing, "reused": False}


# ---------------------------------------------------------------- which specs


def adapters() -> dict[str, Path]:
    """The reference adapters present: benchmarks/references/*.py by module name."""
    return {path.stem: path for path in sorted(REFERENCES.glob("*.py")) if not path.name.startswith("_")}


def registry_specs(name: str) -> tuple[list[str], str | None]:
    """The specs of a registered rule (TARGETS when it takes a target), or why there are none."""
    from tarsim.components import kind
    from tarsim.components.registry import params_of

    cls = kind("stopping").get(name)
    if cls is None:
        return [], f"`{name}` is not a registered tarsim stopping rule (yet)"
    params = {param.name: param for param in params_of(cls)}
    if "target" in params:
        return [f"{name}:target={target:g}" for target in TARGETS], None
    required = [param.name for param in params.values() if param.required]
    if required:
        return [], f"`{name}` needs {', '.join(required)}: add its specs to PAIRS"
    return [name], None


def plan(only: Iterable[str] | None) -> tuple[list[tuple[str, str]], list[dict]]:
    """(spec, adapter) pairs to run, and notes on those skipped."""
    present = adapters()
    pairs, skipped = [], []
    candidates = list(PAIRS)
    for name, adapter in RULES_BY_NAME:
        specs, why = registry_specs(name)
        if why:
            skipped.append({"spec": name, "adapter": adapter, "why": why})
        candidates += [(spec, adapter) for spec in specs]
    from tarsim.stopping import parse_stopping_rule

    for spec, adapter in candidates:
        if only and spec not in only and spec.split(":", 1)[0] not in only:
            continue
        if adapter not in present:
            skipped.append({"spec": spec, "adapter": adapter, "why": f"benchmarks/references/{adapter}.py is absent"})
            continue
        try:
            parse_stopping_rule(spec)
        except Exception as exc:  # a rule absent from this tarsim, or a parameter it does not take
            skipped.append({"spec": spec, "adapter": adapter, "why": f"tarsim refuses it: {exc}"})
            continue
        pairs.append((spec, adapter))
    return pairs, skipped


# ---------------------------------------------------------------- tarsim's side


def tarsim_stops(paths: list[Path], specs: list[str]) -> tuple[dict[str, dict[str, int | None]], dict[str, str]]:
    """Each spec's stop on each ledger (spec -> run -> stop), each ledger read once; and specs tarsim failed on.
    Each run's round ends (tarsim's check points) are kept in ROUND_ENDS, to name the disagreements."""
    from tarsim.data.ledger import read_ledger
    from tarsim.datasets import load_dataset
    from tarsim.stopping import check_points, evaluate_stopping

    collections: dict[str, tuple] = {}
    stops: dict[str, dict[str, int | None]] = {spec: {} for spec in specs}
    failed: dict[str, str] = {}
    for path in paths:
        ledger = read_ledger(path)
        ROUND_ENDS[run_id(path)] = check_points(ledger)
        name = ledger.header["sweep"]["collection"]
        if name not in collections:
            dataset = load_dataset(SHARED / name)
            collections[name] = (dataset.collection.docids, dataset.qrels)
        docids, qrels = collections[name]
        for spec in specs:
            if spec in failed:
                continue
            try:
                outcome = evaluate_stopping(ledger, spec, docids=docids, qrels=qrels, effort_models=("judge",))
            except Exception as exc:
                failed[spec] = f"{path.name}: {type(exc).__name__}: {exc}"
                continue
            stops[spec][run_id(path)] = outcome.position if outcome.stopped else None
    return stops, failed


# ---------------------------------------------------------------- the references' side


def call_adapter(script: Path, spec: str, ledgers: list[Path], refs: Path, peers: str) -> tuple[list[dict], str]:
    """The JSON lines of one adapter call, and its error (empty when it succeeded)."""
    command = [sys.executable, str(script), "--rule", spec, "--refs", str(refs)]
    for ledger in ledgers:
        command += ["--ledger", str(ledger)]
    if accepts_peers(script):
        command += ["--peers", peers]
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, env={**os.environ, "TARSIM_PEERS_PYTHON": peers}
    )
    if done.returncode:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return [], f"exit {done.returncode}: {lines[-1] if lines else 'no message'}"
    rows = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and "stop" in row:
                rows.append(row)
    return rows, "" if rows else "printed no result line"


_PEERS_OPTION: dict[Path, bool] = {}


def accepts_peers(script: Path) -> bool:
    if script not in _PEERS_OPTION:
        _PEERS_OPTION[script] = "--peers" in script.read_text(encoding="utf-8")
    return _PEERS_OPTION[script]


def reference_stops(spec: str, script: Path, paths: list[Path], refs: Path, peers: str) -> tuple[list[dict], str]:
    """Every reference line of one spec on every ledger (with "run" set), batched when the adapter can."""
    by_path = {str(path.resolve()): path for path in paths}
    rows, error = call_adapter(script, spec, paths, refs, peers)
    named = {str(Path(row["ledger"]).resolve()) for row in rows if "ledger" in row}
    if not error and rows and all("ledger" in row for row in rows) and named == set(by_path):
        return [{**row, "run": run_id(by_path[str(Path(row["ledger"]).resolve())])} for row in rows], ""
    results = []  # one call per ledger
    for path in paths:
        rows, error = call_adapter(script, spec, [path], refs, peers)
        if error:
            return [], f"{path.name}: {error}"
        results += [{**row, "run": run_id(path)} for row in rows]
    return results, ""


# ---------------------------------------------------------------- agreement and reports


def compare(pairs, paths, refs, peers, jobs) -> tuple[list[Row], list[dict]]:
    """Rows of agreement for every (spec, adapter) pair; notes on the pairs that could not run."""
    present = adapters()
    specs = list(dict.fromkeys(spec for spec, _ in pairs))
    started = time.perf_counter()
    ours, failed = tarsim_stops(paths, specs)
    print(f"tarsim replayed {len(specs)} specs on {len(paths)} ledgers in {time.perf_counter() - started:.1f} s")
    notes = [{"spec": spec, "adapter": "", "why": f"tarsim failed: {why}"} for spec, why in failed.items()]
    todo = [(spec, adapter) for spec, adapter in pairs if spec not in failed]

    def one(pair):
        spec, adapter = pair
        began = time.perf_counter()
        lines, error = reference_stops(spec, present[adapter], paths, refs, peers)
        print(f"  {adapter} {spec}: {len(lines)} lines in {time.perf_counter() - began:.1f} s {error}", flush=True)
        return pair, lines, error

    rows: dict[tuple[str, str, str], Row] = {}
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        for (spec, adapter), lines, error in pool.map(one, todo):
            if error:
                notes.append({"spec": spec, "adapter": adapter, "why": error})
                continue
            for line in lines:
                key = (spec, str(line.get("reference", adapter)), str(line.get("mode", "aligned")))
                row = rows.setdefault(key, Row(spec, adapter, key[1], key[2], str(line.get("checked", ""))))
                stop = line["stop"]
                row.stops[line["run"]] = (ours[spec].get(line["run"]), None if stop is None else int(stop))
    order = {spec: index for index, spec in enumerate(specs)}
    ranked = sorted(rows.values(), key=lambda r: (order[r.spec], r.reference, r.mode != "aligned"))
    return ranked, notes


def markdown(summaries: list[dict], notes: list[dict], meta: dict) -> str:
    """The agreement table, every disagreement, and the notes, as markdown."""
    aligned = [s for s in summaries if s["mode"] == "aligned"]
    met = sum(1 for s in aligned if s["share"] is not None and s["share"] >= TARGET_SHARE)
    sweep_note = meta["sweep"]
    lines = [
        "# Stopping rules against their reference implementations",
        "",
        f"`python benchmarks/stopping_agreement.py` on {meta['ledgers']} reviews (14 srd collections x 5 seeds, "
        "relevance feedback, BMI batches, every collection reviewed to the end: "
        "`tarsim sweep benchmarks/stopping_agreement.toml`, "
        f"{sweep_note.get('wall_seconds', '?')} s with {sweep_note.get('jobs', '?')} jobs"
        f"{', reused' if sweep_note.get('reused') else ''}), {meta['date']}.",
        "",
        "A pair agrees when tarsim and the reference stop after the same number of judgments, or neither fires "
        "(column `neither`). Rows `aligned` call the reference where tarsim checks the rule (issue 27's target: "
        f">= {TARGET_SHARE:.0%} of pairs); rows `native` run it as it runs itself, where the two check at other "
        f"points on purpose. Aligned rows at or above the target: {met} of {len(aligned)}.",
        "",
        "Columns: `fired` is how many reviews tarsim's rule / the reference fired on (out of `pairs`); `neither` how "
        "many of the agreeing pairs are reviews on which neither fired; `median` is tarsim's median stop where it "
        "fired.",
        "",
        "| spec | reference | mode | checked | pairs | agreeing | share | neither | fired (tarsim / ref) | median |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        share = "" if s["share"] is None else f"{s['share']:.1%}"
        lines.append(
            f"| `{s['spec']}` | {s['reference']} | {s['mode']} | {s['checked']} | {s['pairs']} | {s['agreeing']} "
            f"| {share} | {s['neither_fired']} | {s['tarsim_fired']} / {s['reference_fired']} "
            f"| {_stop(s['tarsim_median_stop'])} |"
        )
    lines += ["", "## Disagreements", ""]
    for s in summaries:
        if not s["disagreements"] and not s["explanation"]:
            continue
        lines += [f"### `{s['spec']}` vs {s['reference']} ({s['mode']})", ""]
        if s["explanation"]:
            lines += [s["explanation"], ""]
        if s["disagreements"]:
            counts = "; ".join(f"{why}: {n}" for why, n in sorted(s["causes"].items(), key=lambda item: -item[1]))
            lines += [f"{len(s['disagreements'])} disagreements ({counts}).", ""]
            lines += ["| review | tarsim | reference | cause |", "|---|---:|---:|---|"]
            lines += [
                f"| {d['run']} | {_stop(d['tarsim'])} | {_stop(d['reference'])} | {d['cause']} |"
                for d in s["disagreements"]
            ]
            lines.append("")
    if notes:
        lines += ["## Not compared", "", "| spec | adapter | why |", "|---|---|---|"]
        lines += [f"| {_code(n['spec'])} | {n['adapter']} | {n['why']} |" for n in notes]
        lines.append("")
    return "\n".join(lines)


def _code(spec: str) -> str:
    return f"`{spec}`" if spec else "-"


def _stop(stop: float | None) -> str:
    return "never" if stop is None else f"{stop:g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refs", type=Path, default=Path("/work/refs"), help="reference checkouts (owner+name)")
    parser.add_argument("--peers", default="/work/PEERS/bin/python", help="python of the peers' virtualenv")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "tarsim-stopping-agreement")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="only these specs or rule names")
    args = parser.parse_args()
    timing = sweep(args.work, args.jobs)
    paths = sorted(path.resolve() for path in (args.work / "ledgers").glob("*.jsonl"))
    pairs, skipped = plan(args.only)
    print(f"{len(paths)} ledgers; {len(pairs)} (spec, adapter) pairs; {len(skipped)} skipped")
    rows, notes = compare(pairs, paths, args.refs, args.peers, args.jobs)
    summaries = [row.summary() for row in rows]
    meta = {
        "ledgers": len(paths),
        "runs": [run_id(path) for path in paths],
        "sweep": timing,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores ({platform.machine()})",
        "target_share": TARGET_SHARE,
    }
    not_compared = [{"spec": "", "adapter": ref, "why": why} for ref, why in NOT_COMPARED]
    all_notes = skipped + notes + not_compared
    args.out.mkdir(parents=True, exist_ok=True)
    report = {**meta, "rows": summaries, "skipped": all_notes}
    (args.out / "agreement.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (args.out / "agreement.md").write_text(markdown(summaries, all_notes, meta) + "\n", encoding="utf-8")
    print(f"\n{'spec':24} {'reference':52} {'mode':8} {'pairs':>5} {'agree':>5} {'share':>7}")
    for s in summaries:
        share = "" if s["share"] is None else f"{s['share']:.1%}"
        print(f"{s['spec']:24} {s['reference'][:52]:52} {s['mode']:8} {s['pairs']:5} {s['agreeing']:5} {share:>7}")
    for note in all_notes:
        print(f"skipped {note['spec']} ({note['adapter']}): {note['why']}")
    print(f"agreement.json and agreement.md in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
