"""Numbers and names on the command line are taken as typed (issue 30): int() and float() also read '١', '２',
'1_0' and '+10', so `--seed ١` ran seed 1 and `--jobs ２` two workers without a word; a newline or tab in an output
name, or an empty or U+2028 key in a sweep file, was accepted or shown blank."""

from __future__ import annotations

import pytest

from tarsim.cli import main


def _refused(capsys, argv: list[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals exit; tarsim's return the code
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    return err


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["simulate", "--seed", "١"], "'١'"),  # Arabic-Indic one: a Param-declared option
        (["simulate", "--seed", "1_0"], "'1_0'"),
        (["compare", "--seed", "١", "x"], "'١'"),  # plain argparse options
        (["sweep", "--jobs", "２", "x.toml"], "'２'"),
        (["evaluate", "--resamples", "+10", "a", "b"], "'+10'"),
        (["--threads", "２", "list", "learner"], "'２'"),
        (["bench", "bbsard", "--k1-grid", "0.9,１.２"], "'１.２'"),
    ],
    ids=["seed arabic", "seed underscore", "compare seed", "sweep jobs", "resamples plus", "threads", "grid"],
)
def test_a_number_not_written_in_ascii_digits_is_refused(capsys, argv, shown):
    err = _refused(capsys, argv)
    assert shown in err and ("ASCII" in err or "plain number" in err)


def test_plain_numbers_still_read(capsys, tmp_path):
    from tarsim.cli.common import float_list, plain_float, plain_int

    assert plain_int(" 12 ") == 12 and plain_int("-3") == -3
    assert plain_float("1e-3") == 0.001 and plain_float(".5") == 0.5
    assert float_list("0.6, 0.9,1.2") == [0.6, 0.9, 1.2]


def test_threads_variable_in_other_digits_is_refused(monkeypatch):
    from tarsim.runtime.threads import ThreadsError, configured_threads

    monkeypatch.setenv("TARSIM_THREADS", "٢")
    with pytest.raises(ThreadsError, match="ASCII"):
        configured_threads()
    monkeypatch.setenv("TARSIM_THREADS", " 2 ")
    assert configured_threads() == 2


@pytest.mark.parametrize("name", ["out\nx", "out\tx", "out\u2028x"], ids=["newline", "tab", "U+2028"])
def test_an_output_name_with_a_control_character_is_refused_before_any_work(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    err = _refused(capsys, ["simulate", "--out", name])
    assert f"U+{ord(name[3]):04X}" in err and "--out" in err
    assert list(tmp_path.iterdir()) == []


def _sweep_file(tmp_path, body: str):
    path = tmp_path / "s.toml"
    path.write_text(body + '\n[[collections]]\nname = "x"\npath = "y"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ('[sweep]\nvary."" = [1, 2]', 's.toml:2: sweep.vary."":'),
        ('[sweep.vary]\n"" = [1, 2]', 's.toml:2: sweep.vary."":'),
        ('[sweep]\nvary."a\\u2028b" = [1, 2]', 's.toml:2: sweep.vary."a\\u2028b":'),
        ('[sweep]\n"a\\u2028b" = 1', 's.toml:2: sweep."a\\u2028b": unknown key'),
        ('[review]\n"" = 1', 's.toml:2: review."": unknown key'),
        ('[sweep]\nout = "a\\nb"', "s.toml:2: sweep.out: holds U+000A"),
    ],
    ids=["empty vary key", "empty key in [sweep.vary]", "U+2028 vary key", "U+2028 key", "empty key", "out newline"],
)
def test_sweep_keys_are_shown_as_toml_writes_them_at_their_line(capsys, tmp_path, monkeypatch, body, shown):
    monkeypatch.chdir(tmp_path)
    err = _refused(capsys, ["sweep", str(_sweep_file(tmp_path, body).name), "--dry-run"])
    assert shown in err
