"""Benchmark scripts check their extras first (issue 31): a missing package is named in one line with the pip
command of its extra, exit status 2, before any work (benchmarks/zhang2018.py used to fail after 52 s with an
ImportError for tabulate and lose its table)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = """
import runpy, sys
sys.path.insert(0, {folder!r})
for name in {blocked!r}:
    sys.modules[name] = None
sys.argv = [{script!r}, *{argv!r}]
runpy.run_path({script!r}, run_name="__main__")
"""


def run_without(script: str, blocked: list[str], argv: list[str]) -> subprocess.CompletedProcess:
    path = str(ROOT / "benchmarks" / script)
    code = BLOCKED.format(folder=str(ROOT / "benchmarks"), blocked=blocked, script=path, argv=argv)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize(
    ("script", "blocked", "argv", "says"),
    [
        ("zhang2018.py", ["tabulate"], ["synthetic"], 'needs tabulate: pip install ".[bench]"'),
        (
            "zhang2018.py",
            ["tabulate", "matplotlib"],
            ["synthetic"],
            'needs tabulate, matplotlib: pip install ".[bench,plot]"',
        ),
        ("simulate_strategies.py", ["tabulate"], [], 'needs tabulate: pip install ".[bench]"'),
        ("evaluate_speed.py", ["ranx"], [], 'needs ranx: pip install ".[bench]"'),
        ("retrieve_speed.py", ["bm25s"], [], 'needs bm25s: pip install ".[legal]"'),
    ],
)
def test_a_benchmark_names_its_missing_extra_before_any_work(script, blocked, argv, says):
    start = time.monotonic()
    result = run_without(script, blocked, argv)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr == f"benchmarks/{script} {says}\n"
    assert time.monotonic() - start < 60  # no review ran (zhang2018 took 52 s before failing)


def test_every_benchmark_that_needs_an_extra_checks_it():
    for script in (
        "zhang2018",
        "hical_agreement",
        "simulate_strategies",
        "srd_sweep",
        "evaluate_speed",
        "retrieve_speed",
        "segmenter_choice",
    ):
        assert "require_extras(__file__" in (ROOT / "benchmarks" / f"{script}.py").read_text(), script
