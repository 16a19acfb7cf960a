"""The cheaper per-judgment path writes what the plain one would: judgment lines (orjson) equal to json's, the
ledger so far filled in batches equal to one by one, and the learner woken only at its target where that is exact."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from conftest import demo_simulation
from tarsim.data.ledger import encode, encode_judgment, ledger_from_lines
from tarsim.simulator import ReviewConfig, oracle
from tarsim.simulator.rounds import LedgerSoFar
from tarsim.simulator.run import topic_grades

TOPIC = "T2"


def _judgment(docid: str, time: float, seconds: float, **extra) -> dict:
    return {
        "type": "judgment",
        "round": 3,
        "docid": docid,
        "sentence": None,
        "label": 1,
        "truth": 0,
        "effort": {"judge": 1, "sent": 4, "words": 71, "seconds": seconds},
        "seq": 17,
        "time": time,
        "reviewer": 0,
        **extra,
    }


def _json_line(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def test_judgment_lines_are_the_bytes_json_writes():
    rng = np.random.default_rng(11)
    times = np.concatenate([np.round(rng.uniform(0, 1e8, 3000), 6), rng.uniform(0, 1e-3, 300), [0.0, 1e-4, 1e15]])
    seconds = np.concatenate(
        [np.round(rng.uniform(0, 300, 3000), 6), 10.0 ** rng.uniform(-7, -3, 300), [0.0, 4.4, 2.0]]
    )
    docids = ["d1", 'q"uote\\back', "tab\there", "new\nline", "\x00\x1f\x7f", "é ü 中文 \u2028 😀", "1e-05"]
    for i, (time, second) in enumerate(zip(times.tolist(), seconds.tolist(), strict=True)):
        extra = {"trained_sentence": i % 5, "prior": True} if i % 3 == 0 else {}
        record = _judgment(docids[i % len(docids)], time, second, **extra)
        assert encode_judgment(record) == _json_line(record) == encode(record), record


def test_judgment_values_orjson_cannot_write_as_json_does_go_through_json():
    big = _judgment("d", 5.5, 7.8, trained_sentence=2**70)  # past 64 bits: orjson refuses it, json writes it
    surrogate = _judgment("lone \ud800", 5.5, 7.8)  # not UTF-8: orjson refuses it, json writes it
    for record in (big, surrogate):
        assert encode_judgment(record) == _json_line(record)
    for bad in (float("nan"), float("inf")):  # json refuses them (allow_nan=False); orjson would write null
        with pytest.raises(ValueError):
            encode_judgment(_judgment("d", bad, 7.8))
        with pytest.raises(ValueError):
            encode_judgment(_judgment("d", 5.5, bad))


def _records(n: int) -> list[dict]:
    rng = np.random.default_rng(3)
    return [
        _judgment(
            f"d{i}",
            float(np.round(10.0 * i + rng.random(), 6)),
            float(np.round(rng.uniform(4, 30), 6)),
            sentence=None if i % 4 else int(rng.integers(0, 9)),
            label=int(rng.integers(0, 2)),
            truth=int(rng.integers(0, 3)),
            reviewer=i % 3,
            round=i // 20,
            seq=i + 1,
            **({"prior": True} if i < 5 else {}),
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("views_every", [1, 5, 64, None])
def test_the_ledger_so_far_holds_what_parsing_its_lines_gives(views_every):
    records = _records(200)
    header = {"type": "header", "format": 1, "topic": "t", "config": {}, "relevant": 200, "collection_size": 400}
    so_far = LedgerSoFar(header, 400)
    for index, record in enumerate(records):
        so_far.add_judgment(record)
        if views_every and index % views_every == 0:
            so_far.view(stable=False)
    view = so_far.view()
    parsed = ledger_from_lines([encode(header), *(encode(r) for r in records)])
    assert view.docids == parsed.docids
    for name in ("sentence", "label", "truth", "time", "reviewer", "round", "prior"):
        np.testing.assert_array_equal(getattr(view, name), getattr(parsed, name), err_msg=name)
    for key, values in parsed.effort.items():
        np.testing.assert_array_equal(view.effort[key], values, err_msg=key)


@pytest.fixture(scope="module")
def features(demo_features):
    return demo_features


def _review(demo, features, config: ReviewConfig, wake_on_target_only: bool | None = None) -> tuple[bool, list[str]]:
    simulation, writer = demo_simulation(demo, features, config, TOPIC)
    chosen = simulation._wake_on_target_only
    if wake_on_target_only is not None:
        simulation._wake_on_target_only = wake_on_target_only
    simulation.run()
    return chosen, writer.lines


FLAT = {"document_seconds": 0.001, "sentence_seconds": 0.001, "seconds_per_word": 0.0}  # reviewers finish together
ZERO = {"document_seconds": 0.0, "sentence_seconds": 0.0, "seconds_per_word": 0.0}


@pytest.mark.parametrize(
    "settings",
    [
        {"reviewers": 3, "time_model": FLAT},
        {"reviewers": 3, "time_model": FLAT, "async_retrain": True},
        {"reviewers": 2, "async_retrain": True, "retrain_seconds": 7.8, "stopping": ("knee",)},
        {"reviewers": 1, "time_model": ZERO, "async_retrain": True},
    ],
)
@pytest.mark.slow
def test_waking_the_learner_only_at_its_target_leaves_the_ledger_as_waking_it_every_judgment(demo, features, settings):
    config = ReviewConfig(sentence_oracle="inherit", **settings)
    chosen, lines = _review(demo, features, config)
    assert chosen
    assert lines == _review(demo, features, config, wake_on_target_only=False)[1]


def test_judgments_that_take_no_time_wake_the_learner_every_time(demo, features):
    # Three reviewers finishing at the same instant as the learner's wake: waking it only at its target would move it.
    config = ReviewConfig(sentence_oracle="inherit", reviewers=3, time_model=ZERO, async_retrain=True)
    chosen, lines = _review(demo, features, config)
    assert not chosen
    assert lines != _review(demo, features, config, wake_on_target_only=True)[1]


@pytest.mark.parametrize("rows_at_once", [7, 1 << 16])
def test_classifier_labels_from_scores_made_at_build_equal_those_made_per_document(
    demo, features, monkeypatch, rows_at_once
):
    monkeypatch.setattr(oracle, "_ROWS_AT_ONCE", rows_at_once)
    docids = demo.collection.docids
    grades = topic_grades(demo.qrels[TOPIC], {d: i for i, d in enumerate(docids)}, len(docids))
    document_labels = (grades > 0).astype(np.int8)
    built = oracle._fit_classifier_labels(features, document_labels, 0.0, 0)  # not the memo: each chunk size fits
    assert built.relevant_labels is not None and len(built.relevant_labels) == int((grades > 0).sum())
    per_document = replace(built, relevant_labels=None)
    for doc in range(len(docids)):
        assert np.array_equal(built.of(features, doc), per_document.of(features, doc)), doc
    scores = oracle._relevant_sentence_scores(features, document_labels, built.coef, built.intercept)
    some = np.flatnonzero(grades > 0)[:5]
    for doc in some:  # the scores themselves, to the bit
        rows = features.sentence_rows_of(doc)
        assert np.array_equal(scores[doc], np.asarray(rows @ built.coef).ravel() + built.intercept)


@pytest.mark.slow
def test_the_gold_oracle_is_fitted_once_per_features_topic_and_seed(demo, demo_features, monkeypatch):
    """Runs of one topic that differ in policy or priors (a sweep worker keeps the features) share the oracle;
    other labels, another threshold or seed, or other features fit their own; the memo goes with the features."""
    import gc

    oracle._ORACLES.pop(demo_features, None)  # oracles earlier tests fitted on the shared demo features
    fits = []
    fit = oracle._fit_classifier_labels
    monkeypatch.setattr(oracle, "_fit_classifier_labels", lambda *args: fits.append(1) or fit(*args))
    docids = demo.collection.docids
    position = {d: i for i, d in enumerate(docids)}
    labels = {t: (topic_grades(demo.qrels[t], position, len(docids)) > 0).astype(np.int8) for t in ("T1", "T2")}
    first = oracle.classifier_labels(demo_features, labels["T2"])
    assert oracle.classifier_labels(demo_features, labels["T2"].copy()) is first and len(fits) == 1
    assert not first.document_labels.flags.writeable  # shared by runs: nobody may change it
    oracle.classifier_labels(demo_features, labels["T1"])
    oracle.classifier_labels(demo_features, labels["T2"], threshold=0.5)
    oracle.classifier_labels(demo_features, labels["T2"], random_state=1)
    assert len(fits) == 4
    gc.collect()  # features of earlier tests, if any are still waiting to be collected, go before the count
    remembered = len(oracle._ORACLES)
    other = replace(demo_features)  # equal arrays, another object: not assumed to be the same features
    again = oracle.classifier_labels(other, labels["T2"])
    assert len(fits) == 5 and np.array_equal(again.coef, first.coef)
    assert len(oracle._ORACLES) == remembered + 1 and other in oracle._ORACLES
    del other, again
    gc.collect()
    assert len(oracle._ORACLES) == remembered  # its oracles went with it
