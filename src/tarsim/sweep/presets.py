"""[sweep] presets: a study of several presets in one sweep file (`presets = ["asreview-logistic", "bmi"]`), each
run reviewed with its preset and [review]'s settings over it, as `tarsim simulate --preset P` with those options.

The preset is part of the run's id (`collection__topic__PRESET__policy__...`) but not of its derived seed: runs that
differ only in their preset share every random choice (their priors, their random draws), so that they pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tarsim.components import kind
from tarsim.config.presets import apply_preset
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
    if isinstance(review, dict) and "preset" in review:
        check.fail(
            "review.preset", "[sweep] presets varies the preset: leave preset out of [review]", "review", "preset"
        )
    return names


def preset_options(preset: str | None, review: Mapping[str, Any]) -> dict[str, Any]:
    """The ReviewConfig options of a run of `preset`: its settings, [review]'s over them; its policy gives way to
    [sweep] policies, as a [review] preset's does."""
    return {key: value for key, value in apply_preset(preset, review).items() if key != "policy"}
