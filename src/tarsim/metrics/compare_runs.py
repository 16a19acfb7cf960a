"""Paired comparison of several runs against the first on the same qrels (the library side of
`tarsim evaluate --compare`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tarsim.errors import InputError
from tarsim.metrics.measures import Measure, parse_measure
from tarsim.metrics.ranked import Qrels, Run, evaluate_run
from tarsim.metrics.significance import paired_tests


def compare_runs(
    qrels: Qrels,
    runs: Sequence[tuple[str, Run]],
    measures: Iterable[Measure | str],
    *,
    seed: int = 0,
    resamples: int = 10000,
    missing: str = "zero",
    source: str = "qrels",
    scores: str = "float32",
) -> list[dict[str, object]]:
    """One row per (measure, run after the first): the first run's name `run_a`, this run's `run_b`, and
    `paired_tests`' figures (n as an int) over the topics both runs score.

    `scores` is evaluate_run's (float32: trec_eval 9, pytrec_eval). Fewer than 2 such topics raise an InputError
    naming `source` (the qrels), as no paired test is possible.
    """
    if len(runs) < 2:
        raise ValueError(f"compare_runs needs at least two runs, got {len(runs)}")
    wanted = [parse_measure(m) for m in measures]
    scored = [(name, evaluate_run(qrels, run, wanted, missing=missing, scores=scores)) for name, run in runs]
    base_name, base = scored[0]
    results: list[dict[str, object]] = []
    for measure in wanted:
        name = measure.name
        a = {t: s[name] for t, s in base.items() if name in s}
        for run_name, other in scored[1:]:
            b = {t: s[name] for t, s in other.items() if name in s}
            if len(a) < 2 or len(set(a) & set(b)) < 2:
                problem = f"{name}: paired tests need at least 2 topics scored by both runs"
                raise InputError(source, None, problem)
            tests = paired_tests(a, b, seed, resamples)
            results.append({"measure": name, "run_a": base_name, "run_b": run_name, **tests, "n": int(tests["n"])})
    return results
