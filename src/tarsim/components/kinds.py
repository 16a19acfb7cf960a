"""The kinds of component, declared once: label in messages, modules declaring built-ins, plugin group, and the
built-ins' signatures (for option help without importing them; tests/runtime/test_speed_paths.py checks them)."""

from __future__ import annotations

import os
from pathlib import Path

from tarsim.components.registry import KINDS, Kind, declare_kind
from tarsim.components.spec import Spec, parse_spec


def _fixed_batch(text: str) -> Spec | None:
    """A bare integer is a fixed batch size: `10` means `fixed:10`."""
    return Spec(text, "fixed", (text,)) if text.lstrip("-").isdigit() else None


def _oracle_file(text: str) -> Spec | None:
    """A sentence oracle that is not a registered name but an existing file, or that reads as a path (a folder or
    a suffix in it: no oracle's name has either), is a sentence qrels file: a missing one is then reported as
    missing, not as an unknown oracle."""
    name = text.partition(":")[0]
    if KINDS["oracle"].get(name) is not None:
        return None
    if Path(text).is_file() or "/" in text or os.sep in text or Path(name).suffix:  # not `classifer:threshold=0.5`
        return Spec(text, "file", (text,))
    return None


def _lower_name(text: str) -> Spec:
    """Stopping rules are named case-insensitively (`KNEE` is `knee`)."""
    spec = parse_spec(text)
    return Spec(spec.text, spec.name.lower(), spec.positional, spec.named)


LEARNER = declare_kind(
    Kind(
        "learner",
        "learner",
        ("tarsim.learners.named", "tarsim.learners.pegasos"),
        "tarsim.learners",
        forms=("bmi", "logistic", "nb", "svm", "rf", "pegasos"),
        interface=("estimator",),
    )
)
FEATURES = declare_kind(
    Kind("features", "feature extractor", ("tarsim.features.extractors",), "tarsim.features", forms=("bmi", "tfidf"))
)
POLICY = declare_kind(
    Kind(
        "policy",
        "policy",
        ("tarsim.policies.selection",),
        "tarsim.policies",
        forms=("relevance", "uncertainty", "random", "max", "max_random", "max_uncertainty", "mix:SHARE[:other]"),
        interface=("select",),
    )
)
BATCH = declare_kind(
    Kind(
        "batch",
        "batch size",
        ("tarsim.policies.batches",),
        "tarsim.batches",
        ("N (a fixed size)",),
        _fixed_batch,
        forms=("bmi", "fixed:size"),
        interface=("sizes",),
    )
)
EFFORT = declare_kind(
    Kind(
        "effort",
        "effort model",
        ("tarsim.effort_models.models",),
        "tarsim.effort_models",
        forms=("judge", "sent", "lambda:L", "seconds", "clock"),
        interface=("costs",),
    )
)
ORACLE = declare_kind(
    Kind(
        "oracle",
        "sentence oracle",
        ("tarsim.simulator.oracle",),
        "tarsim.oracles",
        shorthand=_oracle_file,
        forms=("inherit", "classifier", "FILE"),
        interface=("labels",),
    )
)
STOPPING = declare_kind(
    Kind(
        "stopping",
        "stopping rule",
        ("tarsim.stopping.rules",),
        "tarsim.stopping",
        shorthand=_lower_name,
        forms=("budget:aR+b[:MODEL]", "knee", "target:T", "nonrel:N", "oracle"),
        interface=("stop_position",),
    )
)
PRESET = declare_kind(
    Kind(
        "preset",
        "preset",
        ("tarsim.config.presets",),
        "tarsim.presets",
        forms=("bmi", "asreview-default", "asreview-logistic", "asreview-logistic-warm-start", "tarexp-default"),
    )
)
