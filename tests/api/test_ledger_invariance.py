"""Byte-identical ledgers: every strategy, effort model, policy, batch, learner, seeding and reviewer setting
reproduces the ledgers pinned in tests/fixtures/ledger_digests.json (written by the code of commit 19abeaa).

The digest covers every line of the ledger; in the header, the `tarsim` version and `inputs.collection` (whose
encoding may change on purpose) are left out. Regenerate only when a change of ledger content is intended:
`PYTHONPATH=src python tests/api/test_ledger_invariance.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

DIGESTS = Path(__file__).resolve().parents[1] / "fixtures" / "ledger_digests.json"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
ANTIHISTAMINES = SHARED / "srd" / "Cohen_2006_Antihistamines"

_STRATEGIES = {
    "document/document": {},
    "sentence/document": {"feedback": "sentence"},
    "sentence/sentence": {"feedback": "sentence", "train_on": "sentence"},
    "document/sentence": {"train_on": "sentence"},
}

DEMO_GRID: dict[str, dict] = {
    **{f"strategy={name}": settings for name, settings in _STRATEGIES.items()},
    "strategy=sentence/sentence,oracle=classifier": {
        **_STRATEGIES["sentence/sentence"],
        "sentence_oracle": "classifier",
    },
    "strategy=sentence/document,rank_by=document": {**_STRATEGIES["sentence/document"], "rank_by": "document"},
    "strategy=document/sentence,rank_by=sentence": {**_STRATEGIES["document/sentence"], "rank_by": "sentence"},
    "effort=judge": {"max_effort": "0.5R", "max_effort_model": "judge"},
    "effort=sent": {**_STRATEGIES["document/sentence"], "max_effort": "2R+10", "max_effort_model": "sent"},
    "effort=lambda:0.5": {**_STRATEGIES["sentence/document"], "max_effort": "0.7R", "max_effort_model": "lambda:0.5"},
    "effort=seconds": {**_STRATEGIES["sentence/sentence"], "max_effort": "3R", "max_effort_model": "seconds"},
    "effort=clock": {"max_effort": "2R", "max_effort_model": "clock", "reviewers": 2, "retrain_seconds": 5.0},
    "policy=uncertainty": {"policy": "uncertainty", "max_effort": "R"},
    "policy=random": {"policy": "random", "max_effort": "0.5R"},
    "policy=mix:0.2": {**_STRATEGIES["sentence/sentence"], "policy": "mix:0.2", "max_effort": "R"},
    "batch=10": {"batch": "10"},
    "batch=10,strategy=sentence/document": {**_STRATEGIES["sentence/document"], "batch": "10"},
    "learner=logistic": {"learner": "logistic"},
    "learner=logistic,strategy=document/sentence": {**_STRATEGIES["document/sentence"], "learner": "logistic"},
    "seeding=documents": {"seeding": ("documents", 2)},
    "seeding=random": {"seeding": ("random", 0)},
    "seeding=random,strategy=sentence/sentence": {**_STRATEGIES["sentence/sentence"], "seeding": ("random", 0)},
    "reviewers=2,async": {"reviewers": 2, "async_retrain": True, "retrain_seconds": 30.0},
    "reviewers=3,strategy=sentence/sentence": {**_STRATEGIES["sentence/sentence"], "reviewers": 3},
    "reviewers=2,async,effort=clock": {
        "reviewers": 2,
        "async_retrain": True,
        "max_effort": "R",
        "max_effort_model": "clock",
    },
    "fallible": {"false_negative_rate": 0.2, "false_positive_rate": 0.05, "seed": 3},
    "fallible,strategy=sentence/sentence": {
        **_STRATEGIES["sentence/sentence"],
        "false_negative_rate": 0.1,
        "false_positive_rate": 0.02,
        "seed": 1,
    },
    "until=exhausted,max_effort": {"until": "exhausted", "max_effort": "3R"},
    "presumed=20,seed=2": {"presumed_nonrelevant": 20, "seed": 2},
    "lambda=0.5,strategy=sentence/document": {**_STRATEGIES["sentence/document"], "lambda_": 0.5},
}
"""Demo topic T2 (117 relevant of 2,000 documents) under each configuration."""

REAL_GRID: dict[str, dict] = {
    "antihistamines,strategy=document/document": {},
    "antihistamines,strategy=sentence/sentence": _STRATEGIES["sentence/sentence"],
    "antihistamines,strategy=sentence/document,effort=sent": {
        **_STRATEGIES["sentence/document"],
        "max_effort": "R",
        "max_effort_model": "sent",
    },
}
"""The one topic of Cohen 2006 Antihistamines (a 310-document systematic review)."""

DEMO_TOPIC = "T2"


def ledger_digest(path: Path) -> str:
    """SHA-256 of a ledger's lines, the header without its `tarsim` version and `inputs.collection` digest, the end
    record without `body_sha256` and `header_sha256` (added after the digests were pinned; checked here against the
    lines they cover)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header_sha256 = hashlib.sha256((lines[0] + "\n").encode("utf-8")).hexdigest()
    header = json.loads(lines[0])
    header.pop("tarsim")
    header["inputs"].pop("collection")
    lines[0] = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    end = json.loads(lines[-1])
    body = "".join(line + "\n" for line in lines[1:-1]).encode("utf-8")
    assert end.pop("body_sha256") == hashlib.sha256(body).hexdigest()
    assert end.pop("header_sha256") == header_sha256
    lines[-1] = json.dumps(end, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _config(dataset, topic: str, settings: dict):
    from tarsim.policies import SeedingChoice
    from tarsim.simulator import ReviewConfig

    # The digests were pinned under the `inherit` oracle; name it, so a change of the default oracle leaves them valid.
    settings = {"sentence_oracle": "inherit", **settings}
    if "seeding" in settings:
        kind, count = settings["seeding"]
        relevant = sorted(d for d, g in dataset.qrels[topic].items() if g > 0)
        others = sorted(d for d in dataset.collection.docids if d not in dataset.qrels[topic])
        docids = tuple(relevant[:1] + others[: count - 1]) if count else ()
        settings["seeding"] = SeedingChoice(kind, docids)
    return ReviewConfig(**settings)


def run_grid(dataset, topic: str, grid: dict[str, dict], directory: Path) -> dict[str, str]:
    """Review `topic` under every configuration of `grid`; the digest of each ledger by configuration name."""
    from tarsim.features.build import build_features, with_lazy_sentences
    from tarsim.simulator import review_topics
    from tarsim.simulator.strategies import needs_all_sentences

    features = build_features(dataset.collection)
    documents_only = build_features(dataset.collection, sentences=False)
    digests = {}
    for number, (name, settings) in enumerate(grid.items()):
        config = _config(dataset, topic, settings)
        out = directory / f"run{number}"
        review_topics(dataset, config, [topic], out, features=features)
        digests[name] = ledger_digest(next((out / "ledgers").glob("*.jsonl")))
        if not needs_all_sentences(config):  # the same review from lazily segmented sentences
            lazy = with_lazy_sentences(documents_only, dataset.collection)
            review_topics(dataset, config, [topic], directory / f"lazy{number}", features=lazy)
            digests[f"{name} (lazy)"] = ledger_digest(next((directory / f"lazy{number}" / "ledgers").glob("*.jsonl")))
    return digests


def changed_ledgers(grid: dict[str, dict], digests: dict[str, str], pinned: dict[str, str]) -> list[str]:
    """Configurations whose ledger (built with every sentence, or lazily) differs from the pinned one."""
    lazy = [f"{name} (lazy)" for name in grid if f"{name} (lazy)" in digests]
    return [key for key in [*grid, *lazy] if digests[key] != pinned[key.removesuffix(" (lazy)")]]


@pytest.fixture(scope="module")
def pinned() -> dict[str, str]:
    return json.loads(DIGESTS.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_demo_ledgers_are_byte_identical(demo, pinned, tmp_path):
    digests = run_grid(demo, DEMO_TOPIC, DEMO_GRID, tmp_path)
    assert sum(key.endswith(" (lazy)") for key in digests) >= 10  # document-level reviews also ran lazily
    changed = changed_ledgers(DEMO_GRID, digests, pinned)
    assert not changed, f"ledgers changed for: {', '.join(changed)}"


@pytest.mark.slow
def test_real_review_ledgers_are_byte_identical(pinned, tmp_path):
    from conftest import shared_dataset
    from tarsim.datasets import load_dataset

    dataset = load_dataset(shared_dataset("srd", "Cohen_2006_Antihistamines"))
    topic = next(iter(dataset.topics))
    digests = run_grid(dataset, topic, REAL_GRID, tmp_path)
    assert any(key.endswith(" (lazy)") for key in digests)
    changed = changed_ledgers(REAL_GRID, digests, pinned)
    assert not changed, f"ledgers changed for: {', '.join(changed)}"


def test_the_grid_covers_every_strategy_and_effort_model():
    from tarsim.simulator import STRATEGIES

    names = " ".join(DEMO_GRID)
    assert all(f"strategy={s}" in names for s in STRATEGIES)
    assert all(f"effort={m}" in names for m in ("judge", "sent", "lambda:0.5", "seconds", "clock"))


def _write() -> None:  # pragma: no cover - run by hand against the reference code
    import tempfile

    from tarsim.datasets import load_dataset
    from tarsim.datasets.synthetic import demo_dataset

    with tempfile.TemporaryDirectory() as tmp:
        digests = run_grid(demo_dataset(), DEMO_TOPIC, DEMO_GRID, Path(tmp) / "demo")
        dataset = load_dataset(ANTIHISTAMINES)
        digests.update(run_grid(dataset, next(iter(dataset.topics)), REAL_GRID, Path(tmp) / "real"))
    DIGESTS.parent.mkdir(exist_ok=True)
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    _write()
