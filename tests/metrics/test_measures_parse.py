"""Parsing measure names (ir_measures syntax) and rejecting bad ones with a helpful message."""

from __future__ import annotations

import ir_measures
import pytest

from tarsim.errors import ConfigError
from tarsim.metrics import DEFAULT_MEASURES, Measure, parse_measure


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("R@100", Measure("R", 100)),
        ("Success@5", Measure("Success", 5)),
        ("P@10", Measure("P", 10)),
        ("nDCG@20", Measure("nDCG", 20)),
        ("nDCG", Measure("nDCG")),
        ("RPrec", Measure("RPrec")),
        ("AP@100", Measure("AP", 100)),
        ("AP", Measure("AP")),
        ("RR@10", Measure("RR", 10)),
        ("RR", Measure("RR")),
        ("R(rel=2)@100", Measure("R", 100, 2)),
        ("AP(rel=3)", Measure("AP", None, 3)),
        ("MAP@100", Measure("AP", 100)),
        ("ndcg@5", Measure("nDCG", 5)),
    ],
)
def test_parse(text, expected):
    assert parse_measure(text) == expected


@pytest.mark.parametrize(
    "text", ["R@100", "nDCG@20", "RPrec", "AP@100", "RR@10", "Success@5", "P@10", "R(rel=2)@100", "AP(rel=2)", "nDCG"]
)
def test_names_round_trip_like_ir_measures(text):
    assert parse_measure(text).name == text
    # ir_measures spells R-precision "Rprec"; tarsim prints the issue's "RPrec" and accepts both.
    assert str(parse_measure(text)) == str(ir_measures.parse_measure(text)).replace("Rprec", "RPrec")
    assert parse_measure(str(ir_measures.parse_measure(text))) == parse_measure(text)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Foo@10", "unknown measure"),
        ("R", "needs a cutoff"),
        ("P", "needs a cutoff"),
        ("RPrec@10", "takes no cutoff"),
        ("R@0", "cutoff must be"),
        ("R@x", "cutoff must be an integer >= 1"),
        ("R(rel=0)@10", "rel must be"),
        ("R(gain=2)@10", "unknown parameter"),
        ("R@10@20", "cannot parse"),
        ("", "cannot parse"),
    ],
)
def test_bad_names(text, fragment):
    with pytest.raises(ConfigError, match=fragment):
        parse_measure(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("P@0", "measure 'P@0': cutoff must be an integer >= 1, got '0'"),
        ("R@-1", "measure 'R@-1': cutoff must be an integer >= 1, got '-1'"),
        ("P.0", "measure 'P.0': cutoff must be an integer >= 1, got '0'"),
        ("AP(rel=0)@5", "measure 'AP(rel=0)@5': rel must be an integer >= 1, got '0'"),
    ],
)
def test_bad_cutoffs_share_one_wording_naming_the_measure_as_given(text, message):
    """A zero and a negative cutoff (or rel) are refused in the same words, naming the measure as it was given."""
    with pytest.raises(ConfigError) as caught:
        parse_measure(text)
    assert str(caught.value) == message


def test_default_measures_are_the_issue_list():
    assert [m.name for m in DEFAULT_MEASURES] == [
        "R@100",
        "R@20",
        "nDCG@20",
        "RPrec",
        "AP@100",
        "RR@100",
        "Success@5",
        "Success@1",
    ]


def test_measures_are_frozen_and_hashable():
    measure = parse_measure("R@10")
    with pytest.raises(AttributeError):
        measure.cutoff = 5  # type: ignore[misc]
    assert {measure, parse_measure("R@10")} == {measure}


@pytest.mark.parametrize(
    "trec_name",
    ["ndcg_cut.10", "P.10", "recall.100", "map_cut.100", "recip_rank", "Rprec", "success.5", "map", "ndcg"],
)
def test_trec_eval_names_mean_what_ir_measures_reads_them_as(trec_name):
    """`-m ndcg_cut.10` as trec_eval takes it (and P_10 as it prints it): the measure ir_measures parses it to."""
    (expected,) = ir_measures.parse_trec_measure(trec_name)
    assert parse_measure(trec_name).name.lower() == str(expected).lower()
    assert parse_measure(trec_name.replace(".", "_")) == parse_measure(trec_name)
