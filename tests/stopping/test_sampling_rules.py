"""scal, autostop and chao on hand-built reviews (tests/stopping/sampling_cases.py) whose stops were derived by hand
or by running the reference implementation (benchmarks/references/sampling_refs.py, as said at each case); each
is also followed online, one judgment at a time, which must stop at the same judgment. The references are not
needed here: the test that runs them is skipped when their checkouts (TARSIM_REFS, default /work/refs) are absent.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sampling_cases import bmi_rounds, make_case, synthetic_case, write_case

from ledger_factory import replayed_and_online_stop
from tarsim.errors import ConfigError
from tarsim.stopping import ReplayContext, parse_stopping_rule
from tarsim.stopping.capture import chao_estimate

REPO = Path(__file__).resolve().parents[2]
REFS = Path(os.environ.get("TARSIM_REFS", "/work/refs"))
Z95 = 1.959963984540054  # norm.ppf(0.975)


def stops(case, rule: str) -> int | None:
    """The replayed stop, after checking that following the rule online (as a review does) stops there too."""
    return replayed_and_online_stop(case.ledger, rule, case.context)


# ---- scal ------------------------------------------------------------------------------------------------------
# 15 documents reviewed in rounds of 1, 2, 3, 4, 5 (check points 1, 3, 6, 10 and 15, the pool exhausted); the
# 8th and 12th judgments are relevant.
SCAL_ROUNDS = bmi_rounds(15)


def scal_case(seed: int = 0):
    return make_case(list(range(15)), {7, 11}, 15, SCAL_ROUNDS, seed=seed)


def test_scal_by_hand_with_the_whole_review_subsampled():
    # subsample=1: the subsample is every reviewed document, so R = relevant so far and the estimate is
    # ((1.05 R) / 15) x bias x 15. min_reviewed=5: check 6 has R = 0 (0 < 0 is false); check 10 has R = 1:
    # 1.05 x 1.0 x 0.9 = 0.945 < 1, stop at 10. With bias 1.1, 1.05 x 1.1 x 0.9 = 1.0395 x R >= R: never.
    assert scal_case().ledger.round.tolist() == SCAL_ROUNDS
    assert stops(scal_case(), "scal:subsample=1,target=0.9,bias=1.0,min_reviewed=5") == 10
    assert stops(scal_case(), "scal:subsample=1,target=0.9,bias=1.1,min_reviewed=5") is None
    # from 11 on, the only check is 15 (the pool exhausted): R = 2, 0.945 x 2 < 2
    assert stops(scal_case(), "scal:subsample=1,target=0.9,bias=1.0,min_reviewed=11") == 15


@pytest.mark.parametrize(
    ("seed", "reviewed", "spec", "expected"),
    [  # derived by running the reference (destiny-evidence's SCAL.compute, np.random seeded per check point)
        (0, 45, "scal:min_reviewed=5,bias=1.3", 6),
        (3, 60, "scal:min_reviewed=5,bias=1.3", 6),
        (7, 60, "scal:min_reviewed=5,bias=1.3", 10),
        (0, 45, "scal:subsample=0.5,bias=1.3,min_reviewed=10", 10),
    ],
)
def test_scal_as_the_reference_stops(seed, reviewed, spec, expected):
    assert stops(synthetic_case(seed, reviewed), spec) == expected


# ---- chao ------------------------------------------------------------------------------------------------------
def chao_case(d03_in_third: bool = False):
    """Seven judgments of a 40-document collection in rounds 1 1 2 2 3 3 4 (check points 2, 4, 6), d00, d02, d03
    and d05 relevant; the score rounds are chosen so the captures are known:
    round 1 (d00, d01): captures d00.
    round 2 (d02, d03; its scores: d00 3, d02 2, d03 1; cutoff 1): captures d02, d03 and d00.
    round 3 (d04, d05; its scores: d04 1, d05 2, d00 3, d02 1, d03 0.5; cutoff 1): captures d05, d00, d02
    (d03 too when d03_in_third, its score then 1).
    Capture counts at check 6: d00 3, d02 2, d03 1 (2), d05 1; at check 4: d00 2, d02 1, d03 1."""
    size = 40
    second = np.zeros(size, dtype=np.float32)
    second[[0, 2, 3]] = [3, 2, 1]
    third = np.zeros(size, dtype=np.float32)
    third[[4, 5, 0, 2, 3]] = [1, 2, 3, 1, 1 if d03_in_third else 0.5]
    scores = {0: np.zeros(size, dtype=np.float32), 2: second, 4: third, 6: np.zeros(size, dtype=np.float32)}
    return make_case([0, 1, 2, 3, 4, 5, 6], {0, 2, 3, 5}, size, [1, 1, 2, 2, 3, 3, 4], scores)


def test_chao_estimate_by_hand():
    # f1 = 2, f2 = 1, f3 = 1, n = 4: N = 4 + 2^2 / (2 x 1) = 6; var = f2 (r^4 / 4 + r^3 + r^2 / 2), r = f1 / f2 = 2:
    # 4 + 8 + 2 = 14; f0 = 2, C = exp(z sqrt(ln(1 + 14 / 4))) = 11.0642; [4 + 2 / C, 4 + 2 C] = [4.1808, 26.1284]
    estimate = chao_estimate({1: 2, 2: 1, 3: 1}, 3, Z95)
    spread = math.exp(Z95 * math.sqrt(math.log(4.5)))
    assert estimate.point == 6.0 and spread == pytest.approx(11.0642, abs=1e-4)
    assert estimate.upper == pytest.approx(4 + 2 * spread) and estimate.lower == pytest.approx(4 + 2 / spread)
    # chao2006: k = (t - 1) / t = 2 / 3, N = 4 + k x 2 = 5.333
    assert chao_estimate({1: 2, 2: 1, 3: 1}, 3, Z95, "chao2006").point == pytest.approx(4 + 4 / 3)
    # f2 = 0: the bias-corrected n + f1 (f1 - 1) / (2 (f2 + 1)) = 3 + 3; var = 3 + 3.75 - 81 / 24 = 3.375
    fallback = chao_estimate({1: 3}, 2, Z95)
    assert fallback.point == 6.0
    assert fallback.upper == pytest.approx(3 + 3 * math.exp(Z95 * math.sqrt(math.log(1 + 3.375 / 9))))


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # check 4: N = 3 + 2^2 / 2 = 5, round(3 / 5, 2) = 0.6; check 6: N = 6, round(4 / 6, 2) = 0.67
        ("chao:target=0.6,bound=point,min_reviewed=1", 4),
        ("chao:target=0.65,bound=point,min_reviewed=1", 6),
        ("chao:target=0.6,bound=point,min_reviewed=5", 6),  # check 4 comes before min_reviewed
        ("chao:target=0.7,bound=point,min_reviewed=1", None),
        # upper bounds: check 4: 3 + 2 C = 25.13, 3 / 25.13 = 0.12; check 6: 26.13, 4 / 26.13 = 0.153 -> 0.15
        ("chao:target=0.15,min_reviewed=1", 6),
        ("chao:target=0.16,min_reviewed=1", None),
        # chao2006 at check 4 (t = 2, k = 1/2): N = 3 + 1 = 4, 3 / 4 = 0.75
        ("chao:target=0.7,bound=point,estimator=chao2006,min_reviewed=1", 4),
    ],
)
def test_chao_by_hand(spec, expected):
    assert stops(chao_case(), spec) == expected


def test_chao_captures_follow_the_rounds_scores():
    # d03 now captured by round 3 as well: counts 3, 2, 2, 1, so f1 = 1, f2 = 2 and at check 6 N = 4 + 1 / 4
    # = 4.25, round(4 / 4.25, 2) = 0.94 (it was 0.67)
    assert stops(chao_case(d03_in_third=True), "chao:target=0.9,bound=point,min_reviewed=5") == 6
    assert stops(chao_case(), "chao:target=0.9,bound=point,min_reviewed=5") is None


@pytest.mark.parametrize(
    ("seed", "reviewed", "spec", "expected"),
    [  # derived by running the reference (allib's BiasFallbackVariance / Chao2006 and Conservative / Optimistic)
        (0, 45, "chao:min_reviewed=10,bound=point", 21),
        (0, 45, "chao:min_reviewed=10", None),
        (3, 60, "chao:min_reviewed=10", 45),
    ],
)
def test_chao_as_the_reference_stops(seed, reviewed, spec, expected):
    assert stops(synthetic_case(seed, reviewed), spec) == expected


# ---- autostop --------------------------------------------------------------------------------------------------
def all_relevant_case():
    """Ten documents, all relevant; six judgments in rounds 1 2 2 2 2 3 (check points 1 and 5)."""
    scores = {j: np.zeros(10, dtype=np.float32) for j in (0, 1, 5)}
    return make_case([0, 1, 2, 3, 4, 5], set(range(10)), 10, [1, 2, 2, 2, 2, 3], scores)


def test_autostop_by_hand_whatever_the_draws():
    # Hansen-Hurwitz with uniform draws over ten relevant documents: every draw gives y / p = 1 / 0.1, so the
    # estimate is 10 whatever is drawn. found=all: check 1 counts at most 2 (the review's d00 and one draw)
    # < 0.45 x 10; check 5 counts the five reviewed at least: stop at 5.
    case = all_relevant_case()
    assert stops(case, "autostop:estimator=hh,sampler=uniform,found=all,target=0.45") == 5
    # found=sample counts the sample's relevant documents only: 1 + 2 draws hold at most 3 < 4.5, never.
    assert stops(case, "autostop:estimator=hh,sampler=uniform,target=0.45") is None
    # The sample: 1 draw at check 1 and 2 at check 5, with replacement (so 1 to 3 documents), and a replay
    # draws the same documents.
    rule = parse_stopping_rule("autostop:estimator=hh,sampler=uniform,target=0.45")
    sampled = rule.sample(case.ledger, case.context).sampled
    assert 1 <= len(sampled) <= 3 and set(sampled) <= set(case.docids)
    assert rule.sample(case.ledger, case.context).sampled == sampled


def test_autostop_sample_stops_with_the_rule():
    # found=all stops at 5 after both checks' draws; a review of no relevant document never stops and its sample
    # holds every check's draw.
    case = all_relevant_case()
    rule = parse_stopping_rule("autostop:estimator=hh,sampler=uniform,found=all,target=0.45")
    sample = rule.sample(case.ledger, case.context)
    assert 1 <= len(sample.sampled) <= 3 and sample.drawn_at[0] == 1 and set(sample.drawn_at) <= {1, 5}
    none = make_case(list(range(28)), set(), 60, bmi_rounds(28), {j: np.zeros(60, np.float32) for j in (0, 1, 3)})
    nothing = parse_stopping_rule("autostop")
    assert stops(none, "autostop") is None
    # checks 1, 3, 6, 10, 15, 21 draw 1 + 2 + 3 + 4 + 5 + 6 = 21 times (28 is no check point: the pool is not dry)
    assert 1 <= len(nothing.sample(none.ledger, none.context).sampled) <= 21


@pytest.mark.parametrize(
    ("seed", "reviewed", "spec", "expected"),
    [  # derived by running the reference (dli1's samplers and estimators, np.random seeded as the rule's stream)
        (3, 60, "autostop:target=0.8", 45),
        (7, 60, "autostop:estimator=hh", 55),
        (0, 45, "autostop", None),
        (0, 45, "autostop:found=all", 28),
        (7, 60, "autostop:found=all", 36),
        (0, 45, "autostop:estimator=hh,found=all,target=0.8", 15),
        (3, 60, "autostop:condition=strict1,found=all", 60),
        (3, 60, "autostop:condition=strict1,nstd=0.5,target=0.8", 45),
        (3, 60, "autostop:condition=strict2,found=all", None),
        (0, 45, "autostop:sampler=uniform,found=all", 21),
        (3, 60, "autostop:sampler=mixture,epsilon=0.3,found=all", 3),
        (3, 60, "autostop:sampler=uniform,estimator=hh,condition=strict1,target=0.5", 60),
    ],
)
def test_autostop_as_the_reference_stops(seed, reviewed, spec, expected):
    assert stops(synthetic_case(seed, reviewed), spec) == expected


def test_autostop_draws_from_the_reviews_seed():
    one, other = synthetic_case(0, 60), synthetic_case(1, 60)
    rule = parse_stopping_rule("autostop")
    assert rule.sample(one.ledger, one.context).sampled != rule.sample(other.ledger, other.context).sampled


# ---- refusals --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("chao:target=1.5", "target must be a number in (0, 1)"),
        ("autostop:estimator=hh,condition=strict2", "condition strict2 needs estimator ht"),
        ("autostop:sampler=zipf", "sampler must be one of approprior, powerlaw, uniform, mixture"),
        ("scal:subsample=0", "subsample must be a number in (0, 1]"),
    ],
)
def test_bad_specs_say_what_is_wrong_in_one_line(spec, problem):
    with pytest.raises(ConfigError) as error:
        parse_stopping_rule(spec)
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_rules_needing_scores_or_the_collection_say_so():
    case = synthetic_case()
    without_scores = ReplayContext(docids=case.docids, qrels=case.qrels)
    with pytest.raises(ConfigError, match="--log-scores"):
        parse_stopping_rule("chao").stop_position(case.ledger, without_scores)
    without_collection = ReplayContext(scores=case.log)
    with pytest.raises(ConfigError, match="needs the collection's docids and the qrels"):
        parse_stopping_rule("autostop").stop_position(case.ledger, without_collection)
    assert parse_stopping_rule("scal").stop_position(case.ledger, ReplayContext()) is None  # labels only


def test_the_rules_are_listed_with_their_papers_and_references():
    from tarsim.components import kind, summary

    rules = kind("stopping").components
    assert "Cormack & Grossman" in summary(rules["scal"]) and "destiny-evidence" in summary(rules["scal"])
    assert "Li & Kanoulas" in summary(rules["autostop"]) and "dli1/auto-stop-tar" in summary(rules["autostop"])
    assert "Bron et al." in summary(rules["chao"]) and "allib" in summary(rules["chao"])


# ---- the references themselves (skipped without their checkouts) ----------------------------------------------
@pytest.mark.skipif(not (REFS / "dli1+auto-stop-tar").is_dir(), reason="reference checkouts absent (TARSIM_REFS)")
@pytest.mark.parametrize(
    "spec",
    ["scal:min_reviewed=5,bias=1.3", "chao:min_reviewed=10,bound=point", "autostop:found=all", "autostop:target=0.8"],
)
def test_the_references_stop_where_tarsim_does(spec, tmp_path):
    case = synthetic_case(3, 60)
    path = write_case(case, tmp_path)
    command = [sys.executable, str(REPO / "benchmarks" / "references" / "sampling_refs.py"), "--rule", spec]
    command += ["--ledger", str(path), "--refs", str(REFS), "--collection", str(tmp_path / "collection")]
    result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert result["rule"] == spec and result["stop"] == parse_stopping_rule(spec).stop_position(
        case.ledger, case.context
    )
