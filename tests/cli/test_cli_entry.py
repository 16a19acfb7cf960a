"""The process entry point (`tarsim`, `python -m tarsim`): main()'s status, and every exit hook runs (the process
ends as Python programs do: no os._exit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

_RUN_WITH_HOOKS = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('teardown ran'))  # registered before run(): runs last\n"
    "sys.argv = ['tarsim', *sys.argv[1:]]\n"
    "import tarsim.cli as cli\n"
    "real_main = cli.main\n"
    "def main():\n"
    "    atexit.register(lambda: print('library hook ran'))  # as a library main() imports registers its own\n"
    "    if sys.argv[1:] == ['boom']:\n"
    "        raise RuntimeError('boom')\n"
    "    return real_main()\n"
    "cli.main = main\n"
    "cli.run()\n"
)


def _run(*arguments: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", _RUN_WITH_HOOKS, *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=120)


@pytest.mark.slow
def test_run_exits_with_mains_status_after_the_exit_hooks_of_what_it_used():
    done = _run("list")
    assert done.returncode == 0, done.stderr
    assert "bmi" in done.stdout
    assert done.stdout.rstrip().endswith("library hook ran\nteardown ran")  # every exit hook, in order


@pytest.mark.slow
def test_a_user_error_still_exits_2_with_one_line(tmp_path):
    done = _run("simulate", "--collection", str(tmp_path / "absent"))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("tarsim: error:")
    assert done.stdout.rstrip().endswith("library hook ran\nteardown ran")


@pytest.mark.slow
def test_argparse_exits_end_the_same_way():
    """--version (like --help and usage errors) leaves main() through argparse's SystemExit."""
    done = _run("--version")
    assert done.returncode == 0 and done.stdout.startswith("tarsim ")
    assert done.stdout.rstrip().endswith("library hook ran\nteardown ran")
    usage = _run("simulate", "--bogus")
    assert usage.returncode == 2
    assert usage.stderr == "tarsim simulate: error: unrecognized arguments: --bogus (usage: tarsim simulate --help)\n"


def test_an_unexpected_error_keeps_its_traceback_and_status_1():
    done = _run("boom")
    assert done.returncode == 1
    assert "Traceback" in done.stderr and done.stderr.rstrip().endswith("RuntimeError: boom")


@pytest.mark.slow
@pytest.mark.parametrize("module", ["tarsim", "tarsim.cli"])
def test_python_dash_m_runs_the_command(module: str):
    done = subprocess.run([sys.executable, "-m", module, "list"], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bmi" in done.stdout


def test_every_way_of_starting_tarsim_goes_through_run():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"tarsim": "tarsim.cli:run"}
    for module in ("__main__.py", "cli/__main__.py"):
        source = (ROOT / "src" / "tarsim" / module).read_text(encoding="utf-8")
        assert "from tarsim.cli import run" in source and source.rstrip().endswith("run()")


def test_a_librarys_warning_is_one_line(capsys, monkeypatch):
    """scikit-learn's ConvergenceWarning on a tiny screening file printed Python's two lines (the warning, then the
    library's source line) under a tarsim command (a trial's finding): one `tarsim: warning:` line now."""
    import warnings

    import tarsim.cli as cli

    def handler(args):
        warnings.warn("Liblinear failed to converge,\nincrease the number of iterations.", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(cli, "build_parser", lambda command: _parser_with(handler))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert cli.main(["anything"]) == 0
    assert capsys.readouterr().err == (
        "tarsim: warning: RuntimeWarning: Liblinear failed to converge, increase the number of iterations.\n"
    )


def _parser_with(handler):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("command")
    parser.set_defaults(handler=handler)
    return parser


def test_an_abbreviated_option_is_refused_not_guessed(capsys):
    from tarsim.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["simulate", "--max-eff", "20"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        "tarsim simulate: error: unrecognized arguments: --max-eff 20 (usage: tarsim simulate --help)\n"
    )
