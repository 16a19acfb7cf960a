"""`tarsim sweep` configuration: validation before any run starts, plan expansion, and derived seeds."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tarsim.cli import main
from tarsim.errors import InputError
from tarsim.sweep import derive_seed, expand_plan, parse_sweep_config
from tarsim.sweep.plan import load_collections

VALID = """\
[sweep]
seeds = 2
policies = ["relevance", "random"]
strategies = ["document/document", "sentence/document"]

[[collections]]
path = "demo"
topics = ["T1", "T3"]

[review]
max_effort = "1R+20"
"""


def write(tmp_path, text: str):
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def rejected(tmp_path, capsys, text: str) -> str:
    """Run the CLI on a bad config: exit 2, one line on stderr, and nothing run (no output directory)."""
    config = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()
    return err


def test_valid_config_expands_to_every_combination_in_a_fixed_order(tmp_path):
    config = parse_sweep_config(VALID, tmp_path / "sweep.toml")
    assert config.seeds == (0, 1)
    runs, skipped = expand_plan(config, load_collections(config))
    assert not skipped
    assert len(runs) == 2 * 2 * 2 * 2
    assert [r.topic for r in runs[:8]] == ["T1"] * 8
    assert runs[0].run_id == "demo__T1__relevance__document-document__seed0"
    assert len({r.run_id for r in runs}) == len({r.derived_seed for r in runs}) == 16
    assert config.review_config(runs[0].policy, runs[0].strategy, runs[0].derived_seed).max_effort == "1R+20"
    logistic = parse_sweep_config(VALID + 'learner = "logistic"\n', tmp_path / "sweep.toml")
    assert logistic.review_config(runs[0].policy, runs[0].strategy, runs[0].derived_seed).learner == "logistic"


def test_unknown_policy_names_key_and_accepted_values(tmp_path, capsys):
    err = rejected(tmp_path, capsys, VALID.replace('"random"]', '"randum"]'))
    assert "sweep.toml:3: sweep.policies:" in err
    assert "'randum'" in err and "relevance, uncertainty, random" in err


def test_negative_seed_count_is_rejected(tmp_path, capsys):
    err = rejected(tmp_path, capsys, VALID.replace("seeds = 2", "seeds = -3"))
    assert "sweep.toml:2: sweep.seeds: seed count must be >= 1, got -3" in err


def test_missing_collection_directory_is_rejected(tmp_path, capsys):
    err = rejected(tmp_path, capsys, VALID.replace('path = "demo"', 'path = "no/such/dir"'))
    assert "collections[0].path" in err and "does not exist" in err and "no/such/dir" in err


def test_typo_in_a_key_suggests_the_closest_one(tmp_path, capsys):
    err = rejected(tmp_path, capsys, VALID.replace("policies =", "polices ="))
    assert "sweep.toml:3: sweep.polices: unknown key; did you mean 'policies'?" in err
    err = rejected(tmp_path, capsys, VALID.replace("max_effort", "max_efort"))
    assert "review.max_efort: unknown key; did you mean 'max_effort'?" in err
    err = rejected(tmp_path, capsys, VALID.replace("[review]", "[reveiw]"))
    assert "did you mean 'review'?" in err


def test_other_bad_values(tmp_path, capsys):
    assert "unknown strategy 'sentence/documents'; did you mean 'sentence/document'?" in rejected(
        tmp_path, capsys, VALID.replace('"sentence/document"]', '"sentence/documents"]')
    )
    assert "topic 'T9' is not in the qrels" in rejected(tmp_path, capsys, VALID.replace('"T3"', '"T9"'))
    assert "review.max_effort: budget 'lots'" in rejected(tmp_path, capsys, VALID.replace('"1R+20"', '"lots"'))
    assert "sweep.toml:1: invalid TOML" in rejected(tmp_path, capsys, "[sweep\nseeds = 1\n")
    assert "effort model 'minutes' unknown" in rejected(
        tmp_path, capsys, VALID.replace("seeds = 2", 'seeds = 2\neffort_models = ["judge", "minutes"]')
    )
    assert "sweep.stopping" in rejected(tmp_path, capsys, VALID.replace("seeds = 2", 'seeds = 2\nstopping = ["kneel"]'))
    assert "sweep.seeds: expected" in rejected(tmp_path, capsys, VALID.replace("seeds = 2", "seeds = [1, 1]"))
    assert "review.reviewers: expected an integer >= 1, got 'two'" in rejected(
        tmp_path, capsys, VALID + 'reviewers = "two"\n'
    )
    assert "learner 'svn' unknown; accepted: bmi" in rejected(tmp_path, capsys, VALID + 'learner = "svn"\n')
    assert "--scheduler needs --backend dask" in _cli_error(tmp_path, capsys, ["--scheduler", "tcp://127.0.0.1:1"])


def _cli_error(tmp_path, capsys, extra):
    config = write(tmp_path, VALID)
    assert main(["sweep", str(config), "--out", str(tmp_path / "o"), *extra]) == 2
    return capsys.readouterr().err


def test_missing_config_file(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: sweep configuration file does not exist" in capsys.readouterr().err


def test_glob_collections_and_relative_paths(tmp_path):
    for name in ("b", "a"):
        (tmp_path / "data" / name).mkdir(parents=True)
    config = parse_sweep_config('[[collections]]\npath = "data/*"\n', tmp_path / "s.toml")
    assert [c.name for c in config.collections] == ["a", "b"]
    with pytest.raises(InputError, match="no collection directory or screening file matches"):
        parse_sweep_config('[[collections]]\npath = "nothing/*"\n', tmp_path / "s.toml")
    with pytest.raises(InputError, match="used twice"):
        parse_sweep_config('collections = ["data/a", "data/a"]\n', tmp_path / "s.toml")


@pytest.mark.slow
def test_derived_seeds_are_stable_across_processes_and_hash_salts():
    here = [derive_seed(0, "demo", "T1", "relevance", "document/document", s) for s in range(3)]
    code = (
        "from tarsim.sweep import derive_seed;"
        "print([derive_seed(0, 'demo', 'T1', 'relevance', 'document/document', s) for s in range(3)])"
    )
    for salt in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": salt}
        printed = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert printed.stdout.strip() == str(here)
    assert len(set(here)) == 3 and all(0 <= s < 2**32 for s in here)
    assert derive_seed(1, "demo", "T1", "relevance", "document/document", 0) != here[0]
    assert derive_seed(0, "demo", "T1", "random", "document/document", 0) != here[0]


def test_errors_found_when_the_collections_are_read_name_the_line_of_the_collection(tmp_path, capsys):
    """Problems seen only once a collection is loaded point at the sweep file's line, as parse errors do: an unknown
    topic at the collection's, a [review] setting its preset refuses at that setting's (`lambda`, named as the file
    names it; it named the collection's line, a trial's finding)."""
    from tarsim.cli import main

    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[sweep]\nseeds = 1\n\n[[collections]]\npath = "demo"\ntopics = ["nope"]\n')
    assert main(["sweep", str(unknown), "--out", str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err == (
        f"tarsim: error: {unknown}:6: collections 'demo': topic 'nope' is not in the qrels; known topics: T1, T2, T3\n"
    )
    rows = ["title,abstract,label_included", *(f"trial {i},abstract {i},{int(i < 3)}" for i in range(12))]
    (tmp_path / "tiny.csv").write_text("\n".join(rows) + "\n")
    refused = tmp_path / "refused.toml"
    refused.write_text('[sweep]\nseeds = 1\n\n[review]\nlambda = 0.001\n\n[[collections]]\npath = "tiny.csv"\n')
    assert main(["sweep", str(refused), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: {refused}:5: collections 'tiny': lambda is the bmi learner's regularisation")
    # the trial's file: [review] after the collection, its key on line 7 (the collection's table on line 4)
    after = tmp_path / "after.toml"
    after.write_text('[sweep]\nseeds = 1\n\n[[collections]]\npath = "tiny.csv"\n[review]\nlambda = 0.001\n')
    assert main(["sweep", str(after), "--out", str(tmp_path / "c"), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: {after}:7: collections 'tiny': lambda is the bmi learner's regularisation")


def test_a_refused_combination_of_review_keys_names_the_line_of_the_key_it_is_about(tmp_path):
    """Found at parse time (no collection read): the key the message names first, not the [review] header line."""
    text = '[[collections]]\npath = "demo"\n\n[review]\nlearner = "svm"\nretrain_seconds = 1\nlambda = 0.001\n'
    with pytest.raises(InputError) as caught:
        parse_sweep_config(text, tmp_path / "s.toml")
    assert str(caught.value).startswith(f"{tmp_path / 's.toml'}:7: review: lambda is the bmi learner's regularisation")


def test_one_topic_may_be_given_as_a_string(tmp_path):
    """sweeps.md: a single string is accepted wherever a list is (`topics = "T1"` was refused; a trial's finding)."""
    one = parse_sweep_config('[[collections]]\npath = "demo"\ntopics = "T2"\n', tmp_path / "s.toml")
    listed = parse_sweep_config('[[collections]]\npath = "demo"\ntopics = ["T2"]\n', tmp_path / "s.toml")
    assert one.collections[0].topics == listed.collections[0].topics == ("T2",)


# ---- messages found in a new-user trial --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # a nested table's bad value: the key's line (it was the table header's), the key named
            VALID + "\n[review.time_model]\ndocument_seconds = -1\n",
            "sweep.toml:14: review.time_model.document_seconds: time model document_seconds must be a finite number",
        ),
        (  # an inline table: its line (it had none)
            VALID + "features = {min_dff = 3}\n",
            "sweep.toml:12: review.features.min_dff: unknown key; did you mean 'min_df'?",
        ),
        (  # an unknown top-level table: its line (it had none)
            VALID + "\n[sweeps]\nseeds = 1\n",
            "sweep.toml:13: sweeps: unknown key; did you mean 'sweep'?",
        ),
        (  # a path of the wrong type: not "required"
            VALID.replace('path = "demo"', "path = 5"),
            "sweep.toml:7: collections[0].path: expected a string (a directory, a glob, or 'demo'), got 5",
        ),
        (  # a per-run setting in [review]: where it goes
            VALID + 'policy = "random"\n',
            "sweep.toml:12: review.policy: not a key of [review]; a sweep sets it in [sweep] as policies",
        ),
        (VALID + "seed = 3\n", "review.seed: not a key of [review]; a sweep sets it in [sweep] as seeds"),
        (
            VALID + 'feedback = "sentence"\n',
            "review.feedback: not a key of [review]; a sweep sets it in [sweep] as strategies",
        ),
        (
            VALID + 'stopping = ["knee"]\n',
            "review.stopping: not a key of [review]; a sweep sets it in [sweep] as stopping",
        ),
        (VALID + "base_seed = 3\n", "sweep.toml:12: review.base_seed: not a key of [review]; it belongs in [sweep]"),
        (  # a topic listed twice: refused, as duplicates in every other list of the file (it was dropped silently)
            VALID.replace('["T1", "T3"]', '["T1", "T3", "T1"]'),
            "sweep.toml:8: collections[0].topics: topic 'T1' is listed twice; list it once",
        ),
    ],
)
def test_errors_name_the_key_its_line_and_where_it_belongs(tmp_path, capsys, text, expected):
    err = rejected(tmp_path, capsys, text)
    assert expected in err, err


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (VALID.encode("utf-16"), ":1: the file is UTF-16-LE text with a byte order mark, not UTF-8"),
        (VALID.replace("\n", "\r").encode(), ":1: CR-only (old Mac) line ends: a carriage return (\\r) without"),
        (VALID.replace("\n", "\r\n").replace("seeds = 2\r\n", "seeds = 2\r").encode(), ":2: CR-only (old Mac)"),
    ],
)
def test_a_wide_or_cr_only_sweep_file_is_named_as_the_other_readers_name_it(tmp_path, data, expected):
    # probe 4: "'utf-8' codec can't decode byte 0xff" and "invalid TOML ... at line 1" said neither
    from tarsim.sweep import load_sweep_config

    path = tmp_path / "s.toml"
    path.write_bytes(data)
    with pytest.raises(InputError) as error:
        load_sweep_config(path)
    assert str(error.value).startswith(f"{path}{expected}"), str(error.value)


def test_a_utf8_byte_order_mark_is_read_as_any_utf8_sweep_file(tmp_path):
    from tarsim.sweep import load_sweep_config

    path = tmp_path / "s.toml"
    path.write_bytes(b"\xef\xbb\xbf" + VALID.encode())
    assert load_sweep_config(path).seeds == (0, 1)


def test_a_collection_path_that_is_a_fifo_or_a_loop_is_named_for_what_it_is(tmp_path):
    """Both were 'collection ... does not exist'."""
    import os

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "loop").symlink_to("loop")
    for name, said in (("fifo", "is a named pipe (FIFO), not a folder"), ("loop", "is a symlink loop")):
        text = f'[[collections]]\npath = "{name}"\n'
        with pytest.raises(InputError, match=rf"collection '.*{name}' {re.escape(said)}"):
            parse_sweep_config(text, tmp_path / "s.toml")
