"""Shared test fixtures: the location of ../shared/datasets and small reviews that several tests inspect."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
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
    from tarsim.datasets.synthetic import demo_dataset

    return demo_dataset()


@pytest.fixture(scope="session")
def demo_features(demo):
    """The demo collection's features with every sentence, built once for the tests that drive reviews by hand."""
    from tarsim.features.build import build_features

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


_HOLDER = (
    "import sys\n"
    "from tarsim.data.output_lock import output_lock\n"
    "with output_lock(sys.argv[1]):\n"
    "    print('locked', flush=True)\n"
    "    sys.stdin.readline()\n"
)


@contextlib.contextmanager
def lock_held_elsewhere(out: Path) -> Iterator[subprocess.Popen]:
    """Another process holding output folder `out`'s lock, as a running simulate or sweep holds it, until the
    block ends (or the test kills it)."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert process.stdout.readline().strip() == "locked"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def demo_sweep_toml(policy: str = "relevance", seeds: int = 1) -> str:
    """A small sweep of the demo's topic T1: one policy, `seeds` seeds, judge effort, 30 judgments a run."""
    return (
        f'[sweep]\npolicies = ["{policy}"]\nseeds = {seeds}\neffort_models = ["judge"]\n\n'
        '[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\nmax_effort = 30\n'
    )
