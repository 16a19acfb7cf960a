"""Shared test fixtures: the location of ../shared/datasets and small reviews that several tests inspect."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def shared_dataset(*parts: str) -> Path:
    """Path of a shared dataset; the calling test is skipped when the folder is absent (a user's fresh clone)."""
    path = SHARED_DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    return path


@pytest.fixture(scope="session", autouse=True)
def _session_feature_cache(tmp_path_factory):
    """A private feature cache for session- and module-scoped fixtures (set up before any per-test fixture)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TARSIM_CACHE_DIR", str(tmp_path_factory.mktemp("session-feature-cache")))
        yield


@pytest.fixture(autouse=True)
def _private_feature_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own empty feature cache: tests never write to (or read) the user's real cache."""
    monkeypatch.setenv("TARSIM_CACHE_DIR", str(tmp_path_factory.mktemp("feature-cache")))


@pytest.fixture(scope="session")
def demo():
    from tarsim.synthetic import demo_dataset

    return demo_dataset()
