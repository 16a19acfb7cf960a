"""Cold review with every sentence built vs. with the sentences of judged documents only (issue 13).

For each review: build the features both ways (no cache) and run the same review (BMI defaults, to the last
relevant document) on each, in this process, alternating which goes first; print the seconds of features +
review, the share of the collection segmented lazily, and whether the two ledgers are byte-identical.

    python benchmarks/lazy_sentences.py                          # 4 srd reviews and Reuters coffee, gold, acq
    python benchmarks/lazy_sentences.py --datasets srd:Kitchenham_2010 reuters:coffee --repeat 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

from machine_info import describe_machine  # same folder
from tarsim.datasets import load_dataset
from tarsim.features.build import build_features
from tarsim.simulator import ReviewConfig, review_topics

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
DEFAULT = [
    "srd:Cohen_2006_Antihistamines",
    "srd:Cohen_2006_ADHD",
    "srd:Kitchenham_2010",
    "srd:Cohen_2006_ACEInhibitors",
    "reuters:coffee",
    "reuters:gold",
    "reuters:acq",
]


def locate(spec: str) -> tuple[Path, str | None]:
    """`srd:NAME` -> (srd/NAME, its only topic); `reuters:TOPIC` -> (reuters21578, TOPIC)."""
    kind, _, name = spec.partition(":")
    if kind == "srd":
        return DATASETS / "srd" / name, None
    return DATASETS / "reuters21578", name


def timed_review(dataset, topic: str, sentences: bool, out: Path) -> tuple[float, bytes, int]:
    started = time.perf_counter()
    features = build_features(dataset.collection, sentences=sentences, segment_ahead=not sentences)  # as a review
    review_topics(dataset, ReviewConfig(), [topic], out, features=features)
    seconds = time.perf_counter() - started
    segmented = len(features.sentence_offsets) - 1 if sentences else features.lazy.known_documents
    return seconds, next((out / "ledgers").glob("*.jsonl")).read_bytes(), segmented


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each way per review (best is reported)")
    args = parser.parse_args(argv)
    print(describe_machine())
    head = f"{'review':<34} {'N':>6} {'judged':>6} {'whole s':>8} {'lazy s':>7} {'ratio':>6} {'segmented':>9}  same"
    print(head)
    all_same = True
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=1):  # one BLAS thread, as vs_peers
        for spec in args.datasets:
            directory, topic = locate(spec)
            dataset = load_dataset(directory)
            topic = topic or next(iter(dataset.topics))
            best = {True: float("inf"), False: float("inf")}
            ledgers, segmented = {}, 0
            for run in range(args.repeat):
                for sentences in (True, False) if run % 2 == 0 else (False, True):
                    out = Path(tmp) / f"{spec.replace(':', '_')}-{run}-{sentences}"
                    seconds, ledgers[sentences], count = timed_review(dataset, topic, sentences, out)
                    best[sentences] = min(best[sentences], seconds)
                    if not sentences:
                        segmented = count
            same = ledgers[True] == ledgers[False]
            all_same &= same
            judged = ledgers[True].count(b'"type":"judgment"')
            n = len(dataset.collection)
            print(
                f"{spec:<34} {n:>6} {judged:>6} {best[True]:>8.2f} {best[False]:>7.2f} "
                f"{best[True] / best[False]:>6.2f} {segmented / n:>8.0%}  {same}"
            )
    print(f"all ledgers identical: {all_same}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
