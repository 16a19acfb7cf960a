"""Check that tarsim reads screening files as ASReview 3 does: same records, same order, same labels.

ASReview runs in its own virtualenv (`--peers-python`, default /work/PEERS/bin/python) as a subprocess that dumps
(title, abstract, label) per record as JSON; tarsim reads the same file with tarsim.datasets.load_dataset. Not a
test (CI has no ASReview); run by hand after changing tarsim/data/screening.py:

    /work/venv/bin/python benchmarks/asreview_reading.py [FILE ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tarsim.datasets import load_dataset

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
DEFAULT_FILES = sorted((DATASETS / "raw" / "asreview_csv").glob("*.csv"))

ASREVIEW_DUMP = textwrap.dedent(
    """
    import json, sys
    from asreview.data.loader import load_records
    records = load_records(sys.argv[1])
    json.dump([[r.title or "", r.abstract or "", r.included] for r in records], sys.stdout)
    """
)


def asreview_records(python: str, path: Path) -> list[tuple[str, str, int | None]]:
    """(title, abstract, label) of every record as ASReview reads the file, in its record-id order."""
    done = subprocess.run([python, "-c", ASREVIEW_DUMP, str(path)], capture_output=True, text=True, check=True)
    return [(title, abstract, label) for title, abstract, label in json.loads(done.stdout)]


def compare(python: str, path: Path) -> list[str]:
    """Differences between ASReview's and tarsim's reading of one file (empty: identical)."""
    try:
        theirs = asreview_records(python, path)
    except subprocess.CalledProcessError as exc:
        return [f"ASReview refuses the file: {exc.stderr.strip().splitlines()[-1]}"]
    dataset = load_dataset(path)
    labels = dataset.qrels[dataset.name]
    ours = [(doc.title, doc.text, labels[doc.docid]) for doc in dataset.collection]
    problems = []
    if len(theirs) != len(ours):
        problems.append(f"{len(theirs)} records in ASReview, {len(ours)} in tarsim")
    for index, (their, our) in enumerate(zip(theirs, ours, strict=False)):
        # tarsim trims white space around titles and abstracts; ASReview keeps it
        if (their[0].strip(), their[1].strip(), their[2]) != our:
            problems.append(f"record {index}: ASReview {their!r} != tarsim {our!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--peers-python", default="/work/PEERS/bin/python")
    args = parser.parse_args()
    failed = 0
    for path in args.files:
        problems = compare(args.peers_python, path)
        dataset = load_dataset(path)
        included = sum(dataset.qrels[dataset.name].values())
        status = "identical" if not problems else f"{len(problems)} difference(s)"
        print(f"{path.name}: {len(dataset.collection)} records, {included} included: {status}")
        for problem in problems[:10]:
            print(f"  {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
