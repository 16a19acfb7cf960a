"""The kinds of component, declared once: label in messages, modules declaring built-ins, plugin group, and the
built-ins' signatures (for option help without importing them; tests/runtime/test_speed_paths.py checks them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tarsim.components.registry import KINDS, Kind, declare_kind
from tarsim.components.spec import Spec, call_form, parse_spec, unbalanced
from tarsim.errors import ConfigError


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


def _stopping_spec(text: str) -> Spec:
    """Stopping rules are named case-insensitively (`KNEE` is `knee`); a rule that combines others takes them in
    parentheses (`any(knee,budget:2R+100)`, when it declares `takes_rules`) or as its last value, verbatim
    (`notbefore:100:any(knee,nonrel:50)`, when it declares `nests_spec`)."""
    text = text.strip()
    problem = unbalanced(text)
    if problem:
        raise ConfigError(f"stopping rule {text!r}: unbalanced parentheses ({problem}); write e.g. any(knee,nonrel:50)")
    try:
        call = call_form(text)
    except ConfigError as exc:
        raise ConfigError(f"stopping rule {exc}") from None
    if call is not None:
        name, body = call[0].lower(), call[1]
        cls = KINDS["stopping"].get(name)
        if cls is None:
            return Spec(text, name)  # unknown: the registry says so, with the closest name
        if not getattr(cls, "takes_rules", False):
            raise ConfigError(f"stopping rule {text!r}: {name} takes no rules in parentheses; write {name}:VALUE,...")
        if not body.strip():
            raise ConfigError(
                f"stopping rule {text!r}: {name}() lists no rule; give one or more, e.g. {name}(knee,nonrel:50)"
            )
        return Spec(text, name, (body,))
    name, colon, rest = text.partition(":")
    cls = KINDS["stopping"].get(name.strip().lower()) if colon else None
    if cls is not None and getattr(cls, "nests_spec", False):  # the last value is a spec: taken whole
        count = len(getattr(cls, "params", ()))
        return Spec(text, name.strip().lower(), tuple(rest.split(":", count - 1)))
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
        (
            "tarsim.stopping.rules",
            "tarsim.stopping.heuristics",
            "tarsim.stopping.buscar",
            "tarsim.stopping.sampled",
            "tarsim.stopping.counting",
            "tarsim.stopping.quant",
            "tarsim.stopping.prevalence",
            "tarsim.stopping.scoredist",
            "tarsim.stopping.scal",
            "tarsim.stopping.autostop",
            "tarsim.stopping.capture",
            "tarsim.stopping.compose",
        ),
        "tarsim.stopping",
        shorthand=_stopping_spec,
        forms=(
            "budget:aR+b[:MODEL]",
            "knee",
            "target:T",
            "nonrel:N",
            "oracle",
            "2399",
            "reviewhalf",
            "batchprecision:P[:slack]",
            "fixed:N",
            "fraction:F",
            "cmh",
            "buscar",
            "qbcb",
            "ipp",
            "curvefit",
            "quant",
            "quantci",
            "apriori",
            "scores",
            "salt",
            "scoredist",
            "scal",
            "autostop",
            "chao",
            "any(RULE,...)",
            "all(RULE,...)",
            "notbefore:N:RULE",
        ),
        interface=("stop_position",),
    )
)
PRESET = declare_kind(
    Kind(
        "preset",
        "preset",
        ("tarsim.config.presets",),
        "tarsim.presets",
        attributes={"settings": Mapping},  # ReviewConfig values by field name (tarsim.config.presets.Preset)
        forms=("bmi", "asreview-default", "asreview-logistic", "asreview-logistic-warm-start", "tarexp-default"),
    )
)
