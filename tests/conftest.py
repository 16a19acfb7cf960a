"""Shared test fixtures: the location of ../shared/datasets and small reviews that several tests inspect."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def shared_dataset(*parts: str) -> Path:
    """Path of a shared dataset; the calling test is skipped when the folder is absent (a user's fresh clone)."""
    path = SHARED_DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    return path


_SESSION_CACHE = tempfile.mkdtemp(prefix="tarsim-test-feature-cache-")


def pytest_configure(config) -> None:
    """A private feature cache for the whole session, set before test modules are imported (some build a
    subprocess environment from os.environ at import time)."""
    os.environ["TARSIM_CACHE_DIR"] = _SESSION_CACHE


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _private_feature_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own empty feature cache: tests never write to (or read) the user's real cache."""
    monkeypatch.setenv("TARSIM_CACHE_DIR", str(tmp_path_factory.mktemp("feature-cache")))


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the matplotlib figures a test opened (plots and `tarsim plot` leave theirs open): past 20 open
    figures matplotlib warns on stderr, which tests that read a command's one error line would see."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture(scope="session")
def demo():
    from tarsim.synthetic import demo_dataset

    return demo_dataset()


@pytest.fixture(scope="session")
def demo_features(demo):
    """The demo collection's features with every sentence, built once for the tests that drive reviews by hand."""
    from tarsim.features import build_features

    return build_features(demo.collection)


def demo_simulation(demo, features, config, topic: str):
    """A ReviewSimulation of one demo topic (sentence labels inherited) writing to memory; (simulation, writer)."""
    import numpy as np

    from tarsim.simulator.ledger import MemoryLedgerWriter
    from tarsim.simulator.oracle import inherit_labels
    from tarsim.simulator.review import ReviewSimulation, TopicReview
    from tarsim.simulator.run import topic_grades

    docids = demo.collection.docids
    grades = topic_grades(demo.qrels[topic], {d: i for i, d in enumerate(docids)}, len(docids))
    labels = inherit_labels(features, (grades > 0).astype(np.int8))
    header = {"topic": topic, "config": config.to_dict(), "relevant": int((grades > 0).sum())}
    writer = MemoryLedgerWriter({**header, "collection_size": len(docids)})
    review = TopicReview(topic, demo.topics[topic], grades, labels, docids)
    return ReviewSimulation(features, review, config, writer), writer


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> object:
    """Poll `condition` until it is true; fail the test with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
