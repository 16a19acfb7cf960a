"""Document term counts straight from the text against the sums of sentence counts (what build_features does).

For Reuters-21578 and every srd review in ../shared/datasets: checks that `tarsim.features.build.document_counts`
(no sentence segmentation) gives exactly the matrix and terms of `segmented_document_counts` (segment, count
sentences, sum per document), and times both in the same process (all cores, as build_features). Column
`=sklearn`: the same matrix and terms as scikit-learn's CountVectorizer with tarsim's analyser over the whole
collection (tarsim counts with tarsim.text.term_counts, without scikit-learn, and stems each distinct word once). The
analyser given to CountVectorizer is written out here from the contract (letters only, two or more, lower-cased,
every token Porter-stemmed), not taken from tarsim, so tarsim's tokeniser is checked too.

    python benchmarks/document_counts.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from tarsim.data.collection import read_collection
from tarsim.features.build import _document_text, document_counts, segmented_document_counts

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def collections(only: list[str] | None) -> list[Path]:
    found = [SHARED / "reuters21578", *sorted(p for p in (SHARED / "srd").iterdir() if p.is_dir())]
    return [p for p in found if (p / "docs.jsonl").exists() and (not only or p.name in only)]


def reference_analyser(text: str) -> list[str]:
    """tarsim's default tokens by their definition: runs of two or more letters, lower-cased, Porter-stemmed."""
    import Stemmer

    return Stemmer.Stemmer("porter").stemWords(re.findall(r"[^\W\d_]{2,}", text.lower()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="collection folder names")
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    print(
        f"{'collection':<36} {'docs':>6} {'terms':>7} {'identical':>9} {'segmented s':>11} {'direct s':>9} {'ratio':>6}"
        f" {'=sklearn':>8}"
    )
    all_same = True
    for folder in collections(args.only):
        collection = read_collection(folder / "docs.jsonl")
        started = time.perf_counter()
        segmented, segmented_terms = segmented_document_counts(collection)
        middle = time.perf_counter()
        direct, direct_terms = document_counts(collection)
        ended = time.perf_counter()
        same = list(direct_terms) == list(segmented_terms) and all(
            np.array_equal(getattr(direct, name), getattr(segmented, name)) for name in ("data", "indices", "indptr")
        )
        vectoriser = CountVectorizer(analyzer=reference_analyser, dtype=np.int32)
        reference = vectoriser.fit_transform([_document_text(document) for document in collection]).tocsr()
        reference.sort_indices()
        as_sklearn = list(direct_terms) == list(vectoriser.get_feature_names_out()) and all(
            np.array_equal(getattr(direct, name), getattr(reference, name)) for name in ("data", "indices", "indptr")
        )
        all_same &= same and as_sklearn
        seg, dir_ = middle - started, ended - middle
        print(
            f"{folder.name:<36} {len(collection):>6} {len(direct_terms):>7} {same!s:>9} {seg:>11.2f} {dir_:>9.2f}"
            f" {seg / dir_:>6.1f} {as_sklearn!s:>8}"
        )
    print(f"all identical: {all_same}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
