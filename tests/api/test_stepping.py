"""tarsim.review_rounds: one topic's review stepped from Python (the same ledger as simulate's), stopped by hand
without an unfinished ledger left behind, and an unfinished ledger's Recall@E unknown beyond its effort."""

from __future__ import annotations

import os

import pandas as pd
import pytest

import tarsim
from conftest import demo_simulation
from tarsim.data.ledger import read_ledger
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import recall_at_effort, recall_curve
from tarsim.simulator import ReviewConfig
from tarsim.simulator.ledger import LedgerWriter


@pytest.mark.slow
def test_stepped_to_its_end_the_review_writes_simulates_ledger_byte_for_byte(tmp_path):
    tarsim.simulate(topic="T1", out=tmp_path / "sim", seed=2)
    states = list(tarsim.review_rounds(topic="T1", out=tmp_path / "steps", seed=2))
    assert [s.round for s in states] == list(range(1, len(states) + 1))
    assert states[-1].stopped == "all relevant documents presented"
    written = (tmp_path / "steps" / "ledgers" / "T1.jsonl").read_bytes()
    assert written == (tmp_path / "sim" / "ledgers" / "T1.jsonl").read_bytes()
    assert states[-1].judgments == written.count(b'"type":"judgment"')


@pytest.mark.slow
def test_closing_the_steps_early_leaves_nothing_in_the_output_folder(tmp_path):
    out = tmp_path / "out"
    with tarsim.review_rounds(topic="T1", out=out, seed=2) as steps:
        for state in steps:
            if state.round == 2:
                break
        assert any(name.endswith(".partial") for name in os.listdir(out / "ledgers")), "the review is under way"
    assert not out.exists() or not any(out.rglob("*.jsonl*"))
    assert state.judgments == len(state.ledger.docids) > 0
    steps = tarsim.review_rounds(topic="T1", out=out, seed=2)
    next(steps)
    steps.close()  # the folder is unlocked: the whole review runs into it next
    assert list(tarsim.review_rounds(topic="T1", out=out, seed=2))
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == ["T1.jsonl"]


def test_settings_and_topic_are_checked_when_the_steps_are_made():
    with pytest.raises(ConfigError, match="topic 'nope' is not in the qrels"):
        tarsim.review_rounds(topic="nope")
    with pytest.raises(ConfigError, match="did you mean"):
        tarsim.review_rounds(topic="T1", polcy="relevance")


def test_leaving_a_simulations_rounds_early_drops_its_ledger_file(tmp_path, demo, demo_features):
    simulation, _ = demo_simulation(demo, demo_features, ReviewConfig(), "T1")
    writer = LedgerWriter(tmp_path / "T1.jsonl", {"topic": "T1"})
    simulation.writer = writer
    rounds = simulation.rounds()
    next(rounds)
    assert any(tmp_path.iterdir())
    rounds.close()
    assert not any(tmp_path.iterdir())


def test_recall_beyond_an_unfinished_ledgers_effort_is_unknown(demo, demo_features):
    simulation, _ = demo_simulation(demo, demo_features, ReviewConfig(), "T2")
    state = next(s for s in simulation.rounds() if s.round == 3)
    spent = state.effort["judge"]
    curve = recall_curve(state.ledger)
    assert state.ledger.end is None and 0 < curve.recall[-1] < 1
    assert curve.known_recall_at(spent) == curve.recall_at(spent)
    assert curve.known_recall_at(spent + 1) is None
    rows = recall_at_effort(state.ledger)
    assert rows and all((row["recall"] is None) == (row["effort"] > spent) for row in rows)
    assert any(row["recall"] is None for row in rows)


@pytest.mark.slow
def test_a_loop_left_on_the_last_state_keeps_the_finished_review(tmp_path):
    tarsim.simulate(topic="T3", out=tmp_path / "sim", seed=4, stopping=("nonrel:50",))
    with tarsim.review_rounds(topic="T3", out=tmp_path / "steps", seed=4, stopping=("nonrel:50",)) as steps:
        for state in steps:
            if state.stopped:
                break  # as a user stops on the state that says the review stopped
    written = tmp_path / "steps" / "ledgers" / "T3.jsonl"
    assert written.read_bytes() == (tmp_path / "sim" / "ledgers" / "T3.jsonl").read_bytes()
    assert state.ledger.end is not None and state.ledger.end["reason"] == "stopping rule nonrel:50 fired"
    assert recall_at_effort(state.ledger) == recall_at_effort(read_ledger(written))
    assert state.judgments == len(read_ledger(written))


@pytest.mark.slow
def test_a_folder_being_stepped_takes_no_other_writer_of_this_process(tmp_path):
    out = tmp_path / "out"
    first = tarsim.review_rounds(topic="T1", out=out, seed=2)
    next(first)
    with pytest.raises(ConfigError, match="is in use by another review in this process"):
        next(tarsim.review_rounds(topic="T2", out=out, seed=2))
    with pytest.raises(ConfigError, match="is in use by another review in this process"):
        tarsim.simulate(topic="T2", out=out, seed=2)
    rest = list(first)  # the first review is whole: nothing removed its partial ledger
    assert rest[-1].stopped and (out / "ledgers" / "T1.jsonl").is_file()


@pytest.mark.slow
def test_a_stepped_review_rewrites_the_folders_tables_over_every_ledger(tmp_path):
    out = tmp_path / "out"
    tarsim.simulate(topic="T1", out=out, seed=2)
    for _ in tarsim.review_rounds(topic="T2", out=out, seed=2):
        pass
    assert set(pd.read_csv(out / "recall_at_effort.csv")["topic"]) == {"T1", "T2"}
