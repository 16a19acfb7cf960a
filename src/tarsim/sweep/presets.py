"""[sweep] presets: a study of several presets in one sweep file (`presets = ["asreview-logistic", "bmi"]`), each
run reviewed with its preset and [review]'s settings over it, as `tarsim simulate --preset P` with those options.

The preset is part of the run's id (`collection__topic__PRESET__policy__...`) but not of its derived seed: runs that
differ only in their preset share every random choice (their priors, their random draws), so that they pair.

Without [sweep] policies, each preset's run keeps the preset's own policy (asreview-logistic's `max`), as `tarsim
simulate --preset P` does; [sweep] policies, when given, replace it for every preset. The derived seed is then that
of the default policy (`relevance`), whatever the preset's, so runs of two presets still pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tarsim.components import kind
from tarsim.config.presets import apply_preset
from tarsim.config.review import DEFAULT_POLICY
from tarsim.errors import ConfigError


def swept_presets(check, sweep: Mapping, review: Any) -> tuple[str | None, ...]:
    """[sweep] presets (known preset names, none twice), or (None,) when the sweep does not vary them; [review]
    preset beside it is refused (which would win?)."""
    if "presets" not in sweep:
        return (None,)
    names = check.strings(sweep["presets"], "sweep.presets", kind("preset").accepted(), "sweep", "presets")
    for name in names:
        try:
            kind("preset").resolve(name)
        except ConfigError as exc:
            check.fail("sweep.presets", str(exc), "sweep", "presets")
    check.distinct_specs(names, "preset", "sweep.presets", "presets")
    if isinstance(review, dict) and "preset" in review:
        check.fail(
            "review.preset", "[sweep] presets varies the preset: leave preset out of [review]", "review", "preset"
        )
    return names


def preset_options(preset: str | None, review: Mapping[str, Any]) -> dict[str, Any]:
    """The ReviewConfig options of a run of `preset`: its settings, [review]'s over them; its policy gives way to
    [sweep] policies, as a [review] preset's does."""
    return {key: value for key, value in apply_preset(preset, review).items() if key != "policy"}


def preset_policy(preset: str, review: Mapping[str, Any]) -> str:
    """The policy `tarsim simulate --preset P` reviews with: the preset's own (`max`), else ReviewConfig's default."""
    return str(apply_preset(preset, review).get("policy", DEFAULT_POLICY))


def run_policies(
    preset: str | None, policies: tuple[str, ...], given: bool, review: Mapping[str, Any]
) -> tuple[str, ...]:
    """The policies a run of the swept `preset` is reviewed with: [sweep] `policies` when `given` (or when presets are
    not swept), else the preset's own policy alone, as `tarsim simulate --preset P` reviews with."""
    return policies if preset is None or given else (preset_policy(preset, review),)
