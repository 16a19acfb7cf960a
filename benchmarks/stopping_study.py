"""Time the stopping study (issue 27): `tarsim stop` replaying every registered rule on one finished run of 20,000
documents (goal: under 10 s), and a study over the srd reviews x 10 seeds x every rule x 3 targets (goal: under
10 minutes on a 2-core machine), replayed from finished ledgers, not simulated again.

    python benchmarks/stopping_study.py                      # the 20k-document run (built here), then srd if given
    python benchmarks/stopping_study.py --srd-out DIR        # DIR: a finished sweep of srd_stopping_study.toml
    python benchmarks/stopping_study.py --make-srd DIR       # run that sweep first (simulation: long), then time it

The rules are every registered stopping rule, each by its first declared example (`examples`, else its bare name),
so the figures follow whatever rules are registered when it runs. The 20k-document run is synthetic, made here: a
collection of 20,000 one-line documents (400 relevant), a review that judged all of them in rounds growing by 10%
(about 80 rounds) in a noisy relevance-first order, and a score log with every document's score at each round, so
score-based rules replay too. Prints one line per figure; writes nothing into the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SRD = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "srd"
TARGETS = ("0.8", "0.9", "0.95")
SRD_TOML = """[sweep]
base_seed = 0
seeds = {seeds}
policies = ["relevance"]
effort_models = ["judge", "sent", "seconds"]

[[collections]]
path = "{srd}/*"
topics = "all"

[review]
until = "exhausted"
batch = "bmi"
log_scores = true
"""


FALLBACK = {
    "budget": "budget:2R+100",
    "target": "target:10",
    "nonrel": "nonrel:100",
    "batchprecision": "batchprecision:0.025",
    "fixed": "fixed:100",
    "fraction": "fraction:0.05",
    "any": "any(knee,budget:2R+100)",
    "all": "all(knee,target:10)",
    "notbefore": "notbefore:150:knee",
}
"""Specs for rules that declare no example and need parameters."""


def every_rule() -> list[str]:
    """One spec per registered stopping rule: its first example, else FALLBACK's, else its name; a rule none of
    which parses is left out (said on stderr)."""
    from tarsim.components import kind
    from tarsim.errors import ConfigError
    from tarsim.stopping import parse_stopping_rule

    stopping = kind("stopping")
    specs = []
    for name in stopping.names():
        cls = stopping.get(name)
        examples = getattr(cls, "examples", ())
        spec = examples[0] if examples else FALLBACK.get(name, name)
        try:
            parse_stopping_rule(spec)
        except ConfigError as exc:
            print(f"left out: {exc}", file=sys.stderr)
            continue
        specs.append(spec)
    return specs


def synthetic_run(folder: Path, size: int = 20_000, relevant: int = 400, seed: int = 0) -> tuple[Path, Path]:
    """A collection folder and a finished review of it (ledger + score log), as tarsim writes them."""
    from tarsim.data.score_log import ScoreLog

    rng = np.random.default_rng(seed)
    collection = folder / "collection"
    collection.mkdir(parents=True)
    docids = [f"doc{i:05d}" for i in range(size)]
    truth = np.zeros(size, dtype=bool)
    truth[rng.choice(size, relevant, replace=False)] = True
    with open(collection / "docs.jsonl", "w", encoding="utf-8") as handle:
        for docid in docids:
            handle.write(json.dumps({"docid": docid, "title": docid, "text": f"text of {docid}"}) + "\n")
    (collection / "qrels.txt").write_text("".join(f"T 0 {d} {int(t)}\n" for d, t in zip(docids, truth, strict=True)))
    (collection / "topics.tsv").write_text("T\tsynthetic topic\n")
    quality = truth * 2.5 + rng.normal(0, 1, size)
    order = np.argsort(-quality, kind="stable")
    rounds, start, batch = [], 0, 1.0
    while start < size:
        length = min(size - start, math.ceil(batch))
        rounds.append((start, length))
        start += length
        batch *= 1.1
    log = ScoreLog("T", size)
    round_of = np.zeros(size, dtype=np.int64)
    for number, (begin, length) in enumerate(rounds, start=1):
        round_of[begin : begin + length] = number
        log.add(number, begin, (quality + rng.normal(0, 0.3, size)).astype(np.float32))
    ledgers = folder / "run" / "ledgers"
    ledgers.mkdir(parents=True)
    config = {"strategy": "document/document", "policy": "relevance", "seed": seed, "stopping": [], "log_scores": True}
    header = {"type": "header", "format": 1, "topic": "T", "seed": seed, "collection_size": size}
    header.update(relevant=relevant, config=config)
    sentences = rng.integers(3, 12, size)
    with open(ledgers / "T.jsonl", "w", encoding="utf-8") as handle:
        handle.write(json.dumps(header) + "\n")
        for seq, index in enumerate(order, start=1):
            effort = {"judge": 1, "sent": int(sentences[index]), "words": int(sentences[index]) * 12}
            effort["seconds"] = round(3.0 * int(sentences[index]), 3)
            record = {"type": "judgment", "seq": seq, "time": float(seq), "reviewer": 0}
            record.update(round=int(round_of[seq - 1]), docid=docids[index], sentence=None)
            record.update(label=int(truth[index]), truth=int(truth[index]), effort=effort)
            handle.write(json.dumps(record) + "\n")
        handle.write(json.dumps({"type": "end", "reason": "pool exhausted", "judgments": size}) + "\n")
    log.save(folder / "run" / "scores" / "T.npz")
    return collection, ledgers / "T.jsonl"


def time_stop(arguments: list[str]) -> float:
    from contextlib import redirect_stdout
    from io import StringIO

    from tarsim.cli import main

    started = time.perf_counter()
    with redirect_stdout(StringIO()):
        code = main(arguments)
    if code != 0:
        raise SystemExit(f"tarsim {' '.join(arguments)} exited {code}")
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--srd-out", type=Path, help="a finished sweep of the srd study (with log_scores)")
    parser.add_argument("--make-srd", type=Path, metavar="DIR", help="run the srd sweep into DIR first")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the srd sweep --make-srd runs (default 10)")
    args = parser.parse_args(argv)
    rules = every_rule()
    rule_args = [item for spec in rules for item in ("--rule", spec)]
    target_args = [item for target in TARGETS for item in ("--target-recall", target)]
    print(f"{len(rules)} rules: {' '.join(rules)}")
    with tempfile.TemporaryDirectory() as tmp:
        collection, ledger = synthetic_run(Path(tmp))
        one = time_stop(["stop", str(ledger), "--collection", str(collection), *rule_args])
        print(f"tarsim stop, one run of 20,000 documents, every rule, one target: {one:.1f} s (goal < 10 s)")
        three = time_stop(["stop", str(ledger), "--collection", str(collection), *rule_args, *target_args])
        print(f"  the same with 3 targets: {three:.1f} s")
    out = args.srd_out
    if args.make_srd is not None:
        from tarsim.cli import main as tarsim

        args.make_srd.mkdir(parents=True, exist_ok=True)
        config = args.make_srd / "srd_stopping_study.toml"
        config.write_text(SRD_TOML.format(srd=SRD.resolve().as_posix(), seeds=args.seeds), encoding="utf-8")
        started = time.perf_counter()
        if tarsim(["sweep", str(config), "--jobs", str(args.jobs), "--out", str(args.make_srd / "out")]) != 0:
            return 1
        print(f"srd sweep (simulation, not timed against the goal): {time.perf_counter() - started:.0f} s")
        out = args.make_srd / "out"
    if out is not None:
        collections = [item for path in sorted(SRD.resolve().iterdir()) for item in ("--collection", str(path))]
        ledgers = sorted((out / "ledgers").glob("*.jsonl"))
        study = ["stop", str(out / "ledgers"), *collections, *rule_args, *target_args, "--jobs", str(args.jobs)]
        seconds = time_stop(study)
        print(
            f"srd study: {len(ledgers)} runs x {len(rules)} rules x {len(TARGETS)} targets, replayed on "
            f"{args.jobs} processes: {seconds:.0f} s (goal < 600 s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
