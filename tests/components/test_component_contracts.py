"""A component is checked against its kind's interface when registered (not at its first use), a declaration run
again replaces itself (a notebook cell), and a selection policy's batch is checked every round."""

from __future__ import annotations

import numpy as np
import pytest

import tarsim
from conftest import demo_sweep_toml
from tarsim.components import kind, register
from tarsim.errors import ConfigError
from tarsim.learners.named import Learner
from tarsim.policies import SelectionPolicy


@pytest.fixture
def forget():
    """Names registered by a test, removed from their kind afterwards."""
    added: list[tuple[str, str]] = []
    yield added
    for key, name in added:
        kind(key).components.pop(name, None)


def test_a_class_without_its_kinds_methods_is_refused_when_registered(forget):
    class NotAPolicy:
        """Scores nothing."""

        name = "not-a-policy"

        def estimator(self, lambda_, random_state):
            return None

    forget.append(("policy", "not-a-policy"))
    with pytest.raises(TypeError, match=r"NotAPolicy is not a policy: it does not define select\(\)"):
        register("policy")(NotAPolicy)

    class HalfLearner(Learner):
        """A learner that forgot its estimator."""

        name = "half"

    forget.append(("learner", "half"))
    with pytest.raises(TypeError, match=r"HalfLearner is not a learner: it does not define estimator\(\)"):
        register("learner")(HalfLearner)
    assert kind("learner").get("half") is None and kind("policy").get("not-a-policy") is None


def _declare_lowest():
    class Lowest(SelectionPolicy):
        """The lowest-scoring candidates."""

        name = "lowest-test"

        def select(self, scores, candidates, k, rng):
            return candidates[np.argsort(scores[candidates], kind="stable")][:k]

    return register("policy")(Lowest)


def test_a_declaration_run_again_replaces_itself_and_another_class_of_that_name_is_refused(forget):
    forget.append(("policy", "lowest-test"))
    first = _declare_lowest()
    second = _declare_lowest()  # the same cell run twice: the same module and qualified name
    assert first is not second and kind("policy").get("lowest-test") is second

    class Lowest(SelectionPolicy):
        """Another class, elsewhere, of the same name."""

        name = "lowest-test"

        def select(self, scores, candidates, k, rng):
            return candidates[:k]

    with pytest.raises(TypeError, match=r"policy 'lowest-test' is declared twice \(.*_declare_lowest.*, .*\.Lowest\)"):
        register("policy")(Lowest)


def _policy(forget, name: str, select):
    cls = type(name.title(), (SelectionPolicy,), {"__doc__": f"A broken policy ({name}).", "name": name})
    cls.select = lambda self, scores, candidates, k, rng: select(candidates, k)
    forget.append(("policy", name))
    register("policy")(cls)
    return name


BROKEN = {
    "repeats": (lambda candidates, k: np.repeat(candidates[:1], k), "selected a document twice in one batch"),
    "judged": (lambda candidates, k: np.arange(k), "selected a document that is not a candidate"),
    "outside": (lambda candidates, k: np.full(k, 10**9), "selected a document that is not a candidate"),
    "toomany": (lambda candidates, k: candidates[: k + 5], r"selected \d+ documents for a batch of \d+"),
    "nothing": (lambda candidates, k: candidates[:0], r"selected 0 documents for a batch of \d+"),
    "floats": (lambda candidates, k: candidates[:k] + 0.5, r"returned float64 \(1,\): expected document indexes"),
}


@pytest.mark.slow
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_policys_batch_must_be_k_distinct_candidates(forget, broken):
    select, message = BROKEN[broken]
    name = _policy(forget, f"broken-{broken}", select)
    with pytest.raises(ConfigError, match=f"policy '{name}' {message}"):
        tarsim.simulate(topic="T1", policy=name, seeding="random", seed=1)


def test_a_sweep_runs_failure_from_tarsims_own_check_names_no_library_frame(forget, tmp_path):
    from tarsim.sweep import parse_sweep_config, run_sweep

    name = _policy(forget, "broken-twice", BROKEN["repeats"][0])
    outcome = run_sweep(parse_sweep_config(demo_sweep_toml(name), tmp_path / "s.toml"), tmp_path / "out", jobs=1)
    [message] = outcome.failed.values()
    assert message == f"ConfigError: policy '{name}' selected a document twice in one batch"
