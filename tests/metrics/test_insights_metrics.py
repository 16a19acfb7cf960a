"""ASReview Insights' measures (tarsim.metrics.insights) on small reviews worked out by hand from the definitions,
priors in the ledger, the per-topic and hours tables, and `tarsim metrics` on ledgers and order files."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ledger_factory
from asreview_fixtures import write_project
from tarsim.cli import main
from tarsim.data.ledger import ledger_from_lines
from tarsim.metrics import insights
from tarsim.metrics.tar import average_time_to_discovery, rrf, wss
from tarsim.reporting.tables import format_metrics_table, format_review_tables, hours_to_recall

# N = 10 records, R = 2; relevant found at positions 1 and 3.
LABELS = [1, 0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_measures_by_hand():
    labels = np.array(LABELS)
    assert insights.rrf(labels, 10) == 0.5  # k = 1 record screened: 1 of 2 found
    assert insights.rrf(labels, 5) == 0.0  # 5% of 10 is less than one record
    assert insights.rrf(labels, 30) == 1.0
    # random order finds round(2i/9) after i+1 records: 0, 0, 0, 1 (0.67), ..., 2 from i = 7 (1.56)
    assert insights.erf(labels, 10) == 0.5  # (1 - 0) / 2
    assert insights.erf(labels, 40) == pytest.approx((2 - 1) / 2)  # k = 4: round(2*3/9) = round(0.67) = 1
    # WSS@95 reads recall level j = 1 (1/2 <= 0.95 < 2/2): found after 0 records, random after 3
    assert insights.wss(labels, 0.95) == pytest.approx((3 - 0) / 10)
    # WSS@100, j = 2: found after 2 records, random after 7
    assert insights.wss(labels, 1.0) == pytest.approx((7 - 2) / 10)
    assert insights.docs_to_recall(labels, 0.8) == 3  # 0.8 * 2 needs both
    assert insights.docs_to_recall(labels, 0.5) == 1


def test_wss_never_reached_is_none_and_r_is_the_topics():
    # R = 3 but only 2 found: recall never reaches 100%; RRF counts over R = 3
    labels = np.array(LABELS)
    assert insights.wss(labels, 1.0, relevant=3) is None
    assert insights.rrf(labels, 30, relevant=3) == pytest.approx(2 / 3)


def test_found_counts_a_record_labelled_relevant_at_a_later_presentation():
    # a (relevant) is shown twice, labelled relevant the second time (a second reviewer); b is not relevant; c is
    # relevant and labelled so; d is relevant but missed. N = 10, R = 3.
    ledger = ledger_factory.make_ledger(
        [1, 0, 1, 1, 1], [0, 0, 1, 1, 0], docids=["a", "b", "a", "c", "d"], size=10, relevant=3
    )
    found = insights.screening(ledger, recall="found")
    assert found.docids == ["a", "b", "c", "d"]  # records in order of first presentation
    assert found.labels.tolist() == [1, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    assert found.relevant == 3
    presented = insights.screening(ledger)
    assert presented.labels.tolist() == [1, 0, 1, 1, 0, 0, 0, 0, 0, 0]
    # the same records count as in the recall-effort curve: 2 of 3 found
    assert insights.measures(found)["docs_to_80"] is None and insights.rrf(found.labels, 40, 3) == pytest.approx(2 / 3)


def _prior_ledger():
    """p1 (relevant) and p2 are priors; then a, b (relevant), c; N = 10, R = 2."""
    lines = ledger_factory.ledger_lines([1, 0, 0, 1, 0], docids=["p1", "p2", "a", "b", "c"], size=10, relevant=2)
    for index in (1, 2):  # judgment lines of p1 and p2
        record = json.loads(lines[index])
        record["prior"] = True
        lines[index] = json.dumps(record)
    return ledger_from_lines(lines)


def test_ledger_prior_column():
    ledger = _prior_ledger()
    assert ledger.prior.tolist() == [True, True, False, False, False]
    plain = ledger_factory.make_ledger([1, 0])
    assert plain.prior.tolist() == [False, False]


def test_priors_excluded_by_default_and_included_on_request():
    ledger = _prior_ledger()
    excluded = insights.screening(ledger)
    # without priors: sequence a, b, c padded to N = 8, R = 1
    assert (excluded.n, excluded.relevant, excluded.priors) == (8, 1, 2)
    assert excluded.labels.tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    assert insights.time_to_discovery(excluded) == [("b", 2)]
    # WSS@100: found after 1 record; random round(i/7) first reaches 1 at i = 4 (0.57)
    assert insights.wss(excluded.labels, 1.0, excluded.relevant) == pytest.approx((4 - 1) / 8)
    included = insights.screening(ledger, "include")
    assert (included.n, included.relevant) == (10, 2)
    assert insights.time_to_discovery(included) == [("p1", 1), ("b", 4)]
    # WSS@100: 2nd relevant after 3 records; random round(2i/9) first reaches 2 at i = 7
    assert insights.wss(included.labels, 1.0, included.relevant) == pytest.approx((7 - 3) / 10)
    assert wss(ledger, 1.0) == pytest.approx(3 / 8) and wss(ledger, 1.0, priors="include") == pytest.approx(0.4)
    assert average_time_to_discovery(ledger) == 2.0
    assert average_time_to_discovery(ledger, priors="include") == 2.5
    assert rrf(ledger, 10) == 0.0 and rrf(ledger, 10, priors="include") == 0.5
    with pytest.raises(Exception, match="priors"):
        insights.screening(ledger, "both")


def test_tables_of_reviews_with_priors_say_how_they_count_them():
    """Simulate's Recall@E and hours count priors, metrics leaves them out by default: with priors each table's
    caption says its convention in one line (numbers pasted between tables differ); without priors nothing changes."""
    with_priors, plain = _prior_ledger(), ledger_factory.make_ledger([1, 0, 1], size=10, relevant=2)
    text = format_review_tables([with_priors], ["judge", "seconds"])
    recall_table, hours_table = text.split("Mean Recall@E")[1].split("Mean hours")
    assert (
        recall_table.splitlines()[1]
        == hours_table.splitlines()[1]
        == ("prior judgments counted (as tarsim compare does; tarsim metrics leaves them out by default)")
    )
    assert "prior" not in format_review_tables([plain], ["judge", "seconds"]).split("Mean Recall@E")[1]
    excluded = format_metrics_table(insights.metrics_document([with_priors]))
    assert excluded.splitlines()[0].endswith(
        "(priors excluded: Insights' default, --priors include counts them; recall presented)"
    )
    assert "records screened, priors excluded (tarsim compare and simulate count them)\n" in excluded
    included = format_metrics_table(insights.metrics_document([with_priors], "include"))
    assert "(priors included: --priors include, as Insights' --priors; the default leaves" in included.splitlines()[0]
    assert "records screened, priors counted (as tarsim compare and simulate)\n" in included
    bare = format_metrics_table(insights.metrics_document([plain]))
    assert bare.splitlines()[0].endswith("(priors excluded; recall presented)")
    assert "Mean Recall@E, E = aR+b records screened\n" in bare


def test_recall_grid_and_mean():
    screen = insights.Screening("t", "x", [f"d{i}" for i in range(10)], np.array(LABELS), 2, 0)
    row = insights.measures(screen)
    assert row["recall_at_effort"]["1R+0"] == 0.5  # E = 2 records: 1 found
    assert row["recall_at_effort"]["2R+0"] == 1.0
    assert row["atd"] == 2.0 and row["td"] == [["d0", 1], ["d2", 3]]
    other = dict(row, atd=4.0, wss_95=None)
    mean = insights.mean_measures([row, other])
    assert mean["atd"] == 3.0 and mean["wss_95"] is None and mean["runs"] == 2


def test_review_tables_show_hours_for_time_models():
    # 2 relevant of 2 found at judgments 1 and 3; each judgment costs 2 s per sentence, 1 sentence each
    ledger = ledger_factory.make_ledger([1, 0, 1], size=10, relevant=2, seconds_per_sentence=1800.0)
    hours = hours_to_recall([ledger], ["seconds"])
    assert hours.loc["80%", "seconds"] == pytest.approx(1.5)  # 3 judgments x 0.5 h
    assert hours.loc["100%", "seconds"] == pytest.approx(1.5)
    text = format_review_tables([ledger], ["judge", "seconds"])
    assert "Per topic" in text and "Recall@2R+100" in text and "Mean hours" in text
    assert "seconds" not in text.split("Mean hours")[0].split("Mean Recall@E")[1]


def test_a_column_of_fractions_prints_every_value_with_its_decimals():
    found_all = ledger_factory.make_ledger([1, 1, 0, 0], size=10, relevant=2, topic="a")
    found_half = ledger_factory.make_ledger([1, 0, 0, 0], size=10, relevant=2, topic="b")
    rows = format_review_tables([found_all, found_half], ["judge"]).split("Mean Recall@E")[0].splitlines()
    recall_2r100 = {line.split()[0]: line.split()[-1] for line in rows if line.startswith(("a ", "b "))}
    assert recall_2r100 == {"a": "1.000", "b": "0.500"}  # not "1" beside "0.500"
    assert [line.split()[2] for line in rows if line.startswith(("a ", "b "))] == ["4", "4"]  # counts stay counts


def test_metrics_cli_on_an_order_file(tmp_path, capsys):
    order = tmp_path / "screening.mytool.txt"
    order.write_text("# docid label\nd0 1\nd1 0\n\nd2 1\n" + "".join(f"d{i} 0\n" for i in range(3, 10)))
    assert main(["metrics", str(order), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (review,) = document["reviews"]
    assert (review["N"], review["R"], review["tool"], review["topic"]) == (10, 2, "mytool", "screening")
    assert review["wss_100"] == pytest.approx(0.5) and review["atd"] == 2.0
    assert document["mean"]["mytool"]["rrf_10"] == 0.5
    assert main(["metrics", str(order), "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "wss_95" in header and "recall@2R+100" in header and "td" not in header.split(",")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"screening 0 d{i} {int(i in (0, 5))}\n" for i in range(20)))
    assert main(["metrics", str(order), "--qrels", str(qrels), "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    assert (review["N"], review["R"], review["judged"]) == (20, 2, 10)
    assert review["td"] == [["d0", 1], ["d5", 6]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("d0 2\n", "1: label must be 0 or 1"),
        ("d0 1\nd0 0\n", "2: record 'd0' listed twice"),
        ("d0\n", "1: expected `docid label`"),
        ("# nothing\n", "no record"),
    ],
)
def test_metrics_cli_bad_order_file(tmp_path, capsys, text, problem):
    order = tmp_path / "o.txt"
    order.write_text(text)
    assert main(["metrics", str(order)]) == 2
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_run_is_named_by_what_it_ran():
    """The preset alone only when nothing overrides it: a run with other components is never averaged with the
    preset's own runs (both were "tarsim asreview-default")."""
    preset = {
        "preset": "asreview-default",
        "learner": "svm:C=0.11,loss=squared_hinge,balance=balanced,ratio=9.8",
        "extractor": "tfidf:ngram_max=2,sublinear_tf=true,min_df=1,max_df=0.95",
        "policy": "max",
        "batch": "1",
        "presumed_nonrelevant": 0,
    }

    def tool(**config):
        return insights.tool_of(ledger_factory.make_ledger([1, 0], config={**preset, **config}))

    assert tool() == "tarsim asreview-default"
    # the same learner with its parameters in another order is the preset's
    assert tool(learner="svm:ratio=9.8,balance=balanced,loss=squared_hinge,C=0.11") == "tarsim asreview-default"
    nb = tool(learner="nb:alpha=3.822,balance=balanced,ratio=1.2", extractor="tfidf:stop_words=english")
    assert nb == (
        "tarsim asreview-default; learner nb:alpha=3.822,balance=balanced,ratio=1.2; extractor tfidf:stop_words=english"
    )
    assert tool(batch="10", presumed_nonrelevant=100) == "tarsim asreview-default; batch 10; presumed_nonrelevant 100"
    # without a preset: tarsim's defaults are the reference (BMI), the strategy names the run as before
    plain = ledger_factory.make_ledger([1, 0], config={"learner": "bmi", "batch": "bmi", "presumed_nonrelevant": 100})
    assert insights.tool_of(plain) == "tarsim document/document"
    other = ledger_factory.make_ledger([1, 0], config={"learner": "logistic", "presumed_nonrelevant": 0})
    assert insights.tool_of(other) == "tarsim document/document; learner logistic; presumed_nonrelevant 0"


def test_asreview_projects_are_named_by_their_model(tmp_path, capsys):
    """Two minimal projects (records 0..3, 0 included; priors 0 and 1, then 2 and 3 ranked by the model results.db
    records) are two tools, named as `asreview simulate`'s options."""
    records = [(0, 1), (1, 0), (2, 0), (3, 0)]  # (record_id, included): no data rows
    results = [(0, 1, None), (1, 0, None), (2, 0, "max"), (3, 0, "max")]
    model = {"balancer": "balanced", "feature_extractor": "tfidf"}
    svm = write_project(tmp_path / "u4.asreview", records, results, "review", model={"classifier": "svm", **model})
    nb = write_project(tmp_path / "u3.asreview", records, results, "review", model={"classifier": "nb", **model})
    assert main(["metrics", str(svm), str(nb), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [review["tool"] for review in document["reviews"]] == [
        "asreview -c svm -q max -b balanced -e tfidf",
        "asreview -c nb -q max -b balanced -e tfidf",
    ]
    assert all(mean["runs"] == 1 for mean in document["mean"].values())  # not one "asreview" mean over both


def test_levels_asked_for_as_in_asreview_metrics(tmp_path, capsys):
    """`--wss/--rrf/--erf L` (Insights' --wss/--recall/--erf) replace the default levels; by hand on LABELS (N = 10,
    R = 2, relevant at positions 1 and 3; random order finds round(2i/9): 0, 0, 0, 1, 1, 1, 1, 2, 2, 2)."""
    order = tmp_path / "t.mine.txt"
    order.write_text("".join(f"d{i} {label}\n" for i, label in enumerate(LABELS)), encoding="utf-8")
    argv = ["metrics", str(order), "--wss", "0.5", "--wss", "1", "--rrf", "0.2", "--erf", "0.4", "--erf", "0.05"]
    assert main([*argv, "--format", "json"]) == 0
    review = json.loads(capsys.readouterr().out)["reviews"][0]
    levels = {key: value for key, value in review.items() if key.split("_")[0] in ("wss", "rrf", "erf")}
    assert levels == {
        "wss_50": pytest.approx(0.3),  # j = 1: found at once, random after 3 records
        "wss_100": pytest.approx(0.5),  # j = 2: found after 2 records, random after 7
        "rrf_20": 0.5,  # 2 records: the first relevant
        "erf_40": 0.5,  # 4 records: 2 found, random 1
        "erf_5": 0.0,  # less than one record screened
    }
    assert main(argv) == 0
    header = capsys.readouterr().out.splitlines()[1].split()
    assert header[5:10] == ["WSS@50", "WSS@100", "RRF@20", "ERF@40", "ERF@5"]
    assert main(["metrics", str(order), "--wss", "95"]) == 2
    err = capsys.readouterr().err
    assert err == "tarsim: error: --wss 95: give a share from 0 (excluded) to 1, e.g. 0.9 for 90% " + (
        "(as `asreview metrics` takes it)\n"
    )
