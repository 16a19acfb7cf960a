"""The score-based stopping rules (quant, quantci, apriori, scores, salt, scoredist) on hand-built ledgers and score
logs: each stop derived by hand (the arithmetic in the comments) or, for salt, by running the reference
(destiny-evidence/stopping-methods' methods/salt.py through benchmarks/references/score_refs.py's adapter). Each is
replayed and followed online, which must agree; a rule that reads scores refuses, in one line naming --log-scores,
a review that logged none. The last test runs the references again where this machine has them (/work/refs,
/work/PEERS) and is skipped elsewhere: the default run needs none of them."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from ledger_factory import ledger_lines, make_ledger, replayed_and_online_stop
from tarsim.cli import main
from tarsim.data.score_log import ScoreLog
from tarsim.errors import ConfigError
from tarsim.stopping import ReplayContext, evaluate_stopping, parse_stopping_rule

N = 10
DOCIDS = [f"d{i}" for i in range(N)]
ROUNDS = [1, 2, 2, 3, 3, 3, 4, 4]  # check points (round ends) at 1, 3 and 6; the review goes on (8 is none)
TRUTH = [1, 0, 1, 1, 0, 0, 0, 0]  # d0 .. d7 presented in order; relevant: d0, d2, d3
HALF, NONE, ALL = 0.0, -40.0, 40.0  # log-odds of probability 0.5, about 4e-18 and about 1


def score_log(*rounds: tuple[int, dict[int, float]]) -> ScoreLog:
    """A log whose k-th round trained on `judged` judgments and gives document i the log-odds scores[i]
    (NONE for the others)."""
    log = ScoreLog("t", N)
    for number, (judged, scores) in enumerate(rounds, start=1):
        row = np.full(N, NONE, dtype=np.float32)
        for doc, value in scores.items():
            row[doc] = value
        log.add(number, judged, row)
    return log


def stops(ledger, rule: str, log: ScoreLog) -> int | None:
    """The replayed stop, after checking that following the rule online stops at the same judgment."""
    return replayed_and_online_stop(ledger, rule, ReplayContext(docids=DOCIDS, scores=log))


def ledger(**kwargs):
    return make_ledger(TRUTH, rounds=ROUNDS, size=N, **kwargs)


# The rounds every rule but scoredist reads: the learner trained on 0, 1, 3 and 6 judgments.
PREVALENCE_LOG = (
    (0, {0: HALF}),
    (1, {0: HALF, 1: HALF, 2: HALF}),  # read at check point 1
    (3, {0: HALF, 1: HALF, 2: HALF}),  # read at check point 3: nothing unreviewed is likely
    (6, {0: HALF, 1: HALF, 2: HALF, 5: HALF, 6: HALF}),  # read at check point 6 (d3, d4 unlikely)
)


# ---- quant, quantci --------------------------------------------------------------------------------------------
def test_quant_by_hand_waits_for_three_rounds_as_tarexp():
    log = score_log(*PREVALENCE_LOG)
    # At 3 judgments every likely document is reviewed (estimate 1.5 / 1.5 = 1), but only 2 rounds were judged
    # (TARexp: n_rounds < 2); at 6 (3 rounds), reviewed d0 d1 d2 d5 sum 2.0 of 2.5 (d6 unreviewed): 0.8.
    assert stops(ledger(), "quant:target=0.75", log) == 6
    assert stops(ledger(), "quant", log) is None  # 0.8 < 0.95, and 6 is the last check point
    assert stops(ledger(), "quant:target=0.85", log) is None


def test_quant_checks_the_end_of_an_exhausted_pool():
    # The pool ran out after 8 judgments: 8 is a check point, read with the round trained on 6; d6 is reviewed by
    # then, so the estimate is 2.5 / 2.5 = 1.
    assert stops(ledger(reason="pool exhausted"), "quant", score_log(*PREVALENCE_LOG)) == 8


def test_score_rules_compose_online_and_replayed():
    log = score_log(*PREVALENCE_LOG)
    assert stops(ledger(), "any(quant:target=0.75,nonrel:100)", log) == 6
    assert stops(ledger(), "all(scores:target=0.5,apriori:target=0.6)", log) == 6  # 3 and 6
    assert stops(ledger(), "notbefore:4:scores:target=0.5", log) == 4


def test_quantci_by_hand():
    log = score_log(*PREVALENCE_LOG)
    # At 6: known 2.0, total 2.5, all_var 5 x 0.25 = 1.25, unknown_var 0.25 (d6): var = 2^2 / 2.5^4 x 1.25 +
    # (1.25 - 0.25) / 2.5^2 = 0.128 + 0.16 = 0.288, sd 0.5367; 0.8 - 0.5 sd = 0.532, 0.8 - sd = 0.263.
    assert stops(ledger(), "quantci:target=0.5,nstd=0.5", log) == 6
    assert stops(ledger(), "quantci:target=0.5,nstd=1", log) is None
    assert stops(ledger(), "quantci:target=0.75,nstd=0", log) == 6  # nstd 0 is quant


# ---- apriori ---------------------------------------------------------------------------------------------------
def test_apriori_by_hand():
    log = score_log(*PREVALENCE_LOG)
    # Relevant reviewed, predicted (p >= 0.5) among them: at 1 {d0}: 1/1; at 3 {d0, d2}: 2/2; at 6 {d0, d2, d3},
    # d3 unlikely: 2/3, strictly between 0 and 1 and above 0.6 but not 0.7.
    assert stops(ledger(), "apriori:target=0.6", log) == 6
    assert stops(ledger(), "apriori:target=0.7", log) is None
    assert stops(ledger(), "apriori:target=0.6,threshold=0.6", log) is None  # no p >= 0.6: recall 0


# ---- scores ----------------------------------------------------------------------------------------------------
def test_scores_by_hand_counts_the_relevant_labels():
    log = score_log(*PREVALENCE_LOG)
    # Documents with p >= 0.5 (estimated relevant) and relevant labels so far: at 1: 3 and 1 (0.33); at 3: 3 and
    # 2 (0.67); at 6: 5 and 3 (0.6). Strictly above the target.
    assert stops(ledger(), "scores:target=0.5", log) == 3
    assert stops(ledger(), "scores:target=0.65", log) == 3
    assert stops(ledger(), "scores:target=0.7", log) is None
    # The reference counts every label (labels >= 0): 3 of 3 at 3 judgments, above 0.9; tarsim counts 2 of 3.
    assert stops(ledger(), "scores:target=0.9", log) is None
    # The reviewer's labels, not the truth: labelled relevant d2 only, 0/3 at 1 (the truth: 1/3), 1/3 at 3.
    assert stops(ledger(labels=[0, 0, 1, 0, 0, 0, 0, 0]), "scores:target=0.3", log) == 3


# ---- salt ------------------------------------------------------------------------------------------------------
SALT_LOG = (
    (0, {0: 1.0}),
    (1, {0: 1.0, 1: -1.0, 2: 0.5}),
    (3, {0: 2.0, 1: -1.0, 2: 1.5, 3: 0.5, 6: -2.0}),
    (6, {0: 2.0, 1: -1.5, 2: 2.0, 3: 1.0, 4: -1.0, 5: -2.0, 6: -2.5, 7: -3.0}),
)


def test_salt_stops_where_the_reference_does():
    # Stops found by running destiny-evidence/stopping-methods' SALT.compute at the same check points with the same
    # inputs (benchmarks/references/score_refs.py's checks() and run_destiny() on this ledger and log): 1 is not
    # checked (2 rounds needed), the estimate at 3 reaches 0.4 but not 0.5, that at 6 reaches 0.6 but not 0.95.
    log = score_log(*SALT_LOG)
    assert stops(ledger(), "salt:target=0.4", log) == 3
    assert stops(ledger(), "salt:target=0.3,nstd=0.5", log) == 3
    assert stops(ledger(), "salt:target=0.5", log) == 6
    assert stops(ledger(), "salt:target=0.6,alpha=0.01", log) == 6
    assert stops(ledger(), "salt", log) is None
    assert stops(ledger(), "salt:target=0.5,nstd=2", log) is None
    assert stops(ledger(), "salt:target=0.5,margin=true", log) is None  # aims at 0.75
    assert stops(ledger(), "salt:adjusted=false,target=0.5", log) is None  # 5 rounds needed: never checked


# ---- scoredist -------------------------------------------------------------------------------------------------
SCOREDIST_LOG = (
    (0, {0: 4.0}),
    (1, {0: 4.0, 1: 1.5, 2: 2.0, 7: 1.6}),  # at 1: one relevant score, no deviation: no bound
    (3, {0: 4.0, 1: 1.5, 2: 2.0, 7: 1.6}),  # at 3: relevant d0 d2: mean 3, sd 1 (raw log-odds)
    (6, {0: 4.0, 1: 1.5, 2: 2.0, 3: 3.0, 7: 1.6}),  # at 6: relevant 4, 2, 3: mean 3, sd 0.8165
)


def test_scoredist_by_hand():
    log = score_log(*SCOREDIST_LOG)
    # Standardising is affine, so bounds can be read in log-odds. At 3, target 0.95: 3 - 1.645 = 1.355, and d7
    # (1.6, unreviewed) is above it; target 0.8: 3 - 0.842 = 2.158, only d0 above: stop. At 6, target 0.95:
    # 3 - 1.645 x 0.8165 = 1.657: d0 d2 d3 above, all reviewed: stop.
    assert stops(ledger(), "scoredist", log) == 6
    assert stops(ledger(), "scoredist:target=0.8", log) == 3
    assert stops(ledger(), "scoredist:target=0.99", log) is None  # 3 - 2.326 x 0.8165 = 1.10: d1 d7 above it


# ---- refusals --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["quant", "quantci", "apriori", "scores", "salt", "scoredist"])
def test_a_review_without_scores_is_refused_in_one_line(rule):
    with pytest.raises(ConfigError) as error:
        evaluate_stopping(ledger(), rule, docids=DOCIDS)
    assert "--log-scores" in str(error.value) and "\n" not in str(error.value)


def test_scores_without_the_collection_are_refused_in_one_line():
    with pytest.raises(ConfigError, match="needs the collection's docids"):
        parse_stopping_rule("quant").stop_position(ledger(), ReplayContext(scores=score_log(*PREVALENCE_LOG)))


def test_tarsim_stop_refuses_a_review_without_scores(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(ledger_lines(TRUTH, rounds=ROUNDS, size=N)) + "\n")
    assert main(["stop", str(path), "--rule", "quantci"]) == 2
    message = capsys.readouterr().err.strip()
    assert "--log-scores" in message and len(message.splitlines()) == 1


def test_bad_targets_are_refused():
    for spec in ("quant:target=1.5", "quantci:target=0", "salt:alpha=-1", "scoredist:target=1"):
        with pytest.raises(ConfigError):
            parse_stopping_rule(spec)


def test_every_example_parses_and_reads_scores():
    for name in ("quant", "quantci", "apriori", "scores", "salt", "scoredist"):
        rule = parse_stopping_rule(name)
        assert rule.needs_scores
        for example in type(rule).examples:
            assert parse_stopping_rule(example).needs_scores


# ---- the references, when this machine has them (never needed: skipped elsewhere) --------------------------------
REFS = Path(os.environ.get("TARSIM_REFS", "/work/refs"))
PEERS = Path("/work/PEERS/bin/python")


def _score_refs():
    if "score_refs" not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "benchmarks" / "references" / "score_refs.py"
        spec = importlib.util.spec_from_file_location("score_refs", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["score_refs"] = module  # its dataclass looks its module up
        spec.loader.exec_module(module)
    return sys.modules["score_refs"]


@pytest.mark.slow
@pytest.mark.skipif(not (REFS / "destiny-evidence+stopping-methods").is_dir(), reason="no reference checkouts")
@pytest.mark.parametrize(
    ("spec", "log"),
    [
        ("quant:target=0.75", PREVALENCE_LOG),
        ("quantci:target=0.5,nstd=0.5", PREVALENCE_LOG),
        ("apriori:target=0.6", PREVALENCE_LOG),
        ("scores:target=0.5", PREVALENCE_LOG),
        ("salt:target=0.4", SALT_LOG),
        ("salt:target=0.5", SALT_LOG),
        ("scoredist:target=0.8", SCOREDIST_LOG),
    ],
)
def test_the_references_stop_where_tarsim_does(spec, log):
    refs = _score_refs()
    rule, built = parse_stopping_rule(spec), score_log(*log)
    inputs = refs.checks(ledger(), built, DOCIDS)
    kind = rule.spec.split(":")[0]
    if kind in ("quant", "quantci"):
        if not PEERS.exists():
            pytest.skip("no TARexp environment")
        reference = refs.run_tarexp(rule, inputs, N)
    elif kind == "scoredist":
        reference = refs.run_scoredist(rule, inputs, DOCIDS, REFS)
    else:
        reference = refs.run_destiny(rule, inputs, N, REFS, as_is=False)
    assert reference == stops(ledger(), spec, built)
