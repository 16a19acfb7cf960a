"""A document-to-document benchmark built from Reuters-21578, to exercise the legal pipeline on real text.

Each query is a whole story (title and body). Stories are dated by their position in the distribution
(r1, r2, ...: the stories' order). A query's relevant documents are the stories that *precede* it and share
its rarest category (the category with the fewest stories; ties by name): like a UK regulation that can only
transpose an earlier directive, a story can only follow up earlier coverage. The date filter therefore keeps
only candidates strictly earlier than the query. Stories without categories, without body text, or without
an earlier story in their rarest category are not queries; neither are stories whose rarest category has
more than `max_category_size` stories (100 by default), which keeps the relevant sets small, as in EU2UK,
instead of thousands of `earn` stories. Splits are drawn with a fixed seed.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tarsim.data import Collection, Dataset, Qrels
from tarsim.errors import ConfigError, InputError
from tarsim.legal.benchmark import Benchmark


def story_number(docid: str) -> int:
    """The position of a Reuters story from its docid (`r123` -> 123)."""
    if not docid.startswith("r") or not docid[1:].isdigit():
        raise InputError("docs.jsonl", None, f"docid {docid!r} is not of the form r<number>")
    return int(docid[1:])


def build_reuters_doc2doc(
    dataset: Dataset,
    *,
    seed: int = 0,
    n_dev: int = 300,
    n_test: int = 300,
    min_relevant: int = 1,
    max_category_size: int | None = 100,
) -> Benchmark:
    """Build the benchmark from a loaded reuters21578 collection directory (docs + category qrels)."""
    if n_dev < 1 or n_test < 1:
        raise ConfigError("n_dev and n_test must be >= 1")
    collection: Collection = dataset.collection
    dates = {doc.docid: float(story_number(doc.docid)) for doc in collection}
    members: dict[str, list[str]] = defaultdict(list)
    categories: dict[str, list[str]] = defaultdict(list)
    for category, judged in dataset.qrels.items():
        for docid, grade in judged.items():
            if grade > 0 and docid in dates:
                members[category].append(docid)
                categories[docid].append(category)
    qrels: Qrels = {}
    topics: dict[str, str] = {}
    for doc in collection:
        cats = categories.get(doc.docid)
        if not cats or not doc.text.strip():
            continue
        rarest = min(cats, key=lambda c: (len(members[c]), c))
        if max_category_size is not None and len(members[rarest]) > max_category_size:
            continue
        earlier = [d for d in members[rarest] if dates[d] < dates[doc.docid]]
        if len(earlier) < min_relevant:
            continue
        qrels[doc.docid] = dict.fromkeys(sorted(earlier), 1)
        topics[doc.docid] = f"{doc.title}\n{doc.text}".strip()
    eligible = sorted(topics, key=story_number)
    if len(eligible) < n_dev + n_test + 1:
        raise ConfigError(f"only {len(eligible)} eligible queries, fewer than n_dev + n_test + 1")
    order = np.random.default_rng(seed).permutation(len(eligible))
    shuffled = [eligible[i] for i in order]
    splits = {
        "train": sorted(shuffled[n_dev + n_test :], key=story_number),
        "dev": sorted(shuffled[:n_dev], key=story_number),
        "test": sorted(shuffled[n_dev : n_dev + n_test], key=story_number),
    }
    return Benchmark(
        name="reuters-doc2doc",
        preset="reuters-doc2doc",
        collection=collection,
        topics=topics,
        qrels=qrels,
        splits=splits,
        doc_dates=dates,
        query_dates={t: dates[t] for t in topics},
        language="en",
        extra={"seed": str(seed)},
    )
