"""[sweep] keys of the stopping study, checked with the sweep file's checker (tarsim.sweep.config._Checker: each
error names the file, the key's line and the accepted values): target_recall / recall_target, and that score-based
stopping rules come with [review] log_scores = true."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def target_recalls(check, sweep: Mapping) -> tuple[float, ...]:
    """[sweep] target_recall (a number or a list: the stopping study's targets) or recall_target (one number, as
    before); not both."""
    if "target_recall" in sweep and "recall_target" in sweep:
        check.fail("sweep.target_recall", "give target_recall or recall_target, not both", "sweep", "target_recall")
    key = "target_recall" if "target_recall" in sweep else "recall_target"
    value = sweep.get(key, 0.8)
    values = value if isinstance(value, list) and key == "target_recall" else [value]
    accepted = "a number in (0, 1]" + (" or a non-empty list of them" if key == "target_recall" else "")
    if not values:
        check.fail(f"sweep.{key}", f"expected {accepted}, got {value!r}", "sweep", key)
    out: list[float] = []
    for item in values:
        check.typed(item, (int, float), f"sweep.{key}", accepted, "sweep", key)
        if not 0 < item <= 1:
            check.fail(f"sweep.{key}", f"expected {accepted}, got {item!r}", "sweep", key)
        if float(item) in out:
            check.fail(f"sweep.{key}", f"duplicate entries in {value!r}", "sweep", key)
        out.append(float(item))
    return tuple(out)


def check_scores_logged(check, stopping: Sequence[str], review: Any) -> None:
    """A [sweep] stopping rule that reads the learner's scores needs [review] log_scores = true: refused before any
    run, not after them all when the rules are replayed."""
    if not stopping or (isinstance(review, dict) and review.get("log_scores") is True):
        return
    from tarsim.stopping import parse_stopping_rule
    from tarsim.stopping.rules import needs_scores

    for rule in stopping:
        if needs_scores(parse_stopping_rule(rule)):
            check.fail(
                "sweep.stopping",
                f"stopping rule {rule!r} reads the learner's scores of each round: set log_scores = true in [review]",
                "sweep",
                "stopping",
            )
