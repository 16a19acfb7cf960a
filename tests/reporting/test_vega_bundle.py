"""`tarsim report --html` under an address-space limit (`ulimit -v 4000000`): vl-convert's V8 engine cannot reserve
its memory and aborts. Before, that aborted tarsim itself with a core dump and no message; now the bundling runs in
a child process and the abort is one line naming the cause and the fix, exit 2, and no page is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ledger_factory

pytest.importorskip("altair")
pytest.importorskip("vl_convert", reason="vl-convert-python (the report extra) is not installed")
resource = pytest.importorskip("resource", reason="address-space limits need POSIX's resource module")

LIMIT = 4_000_000 * 1024  # bytes: `ulimit -v 4000000`


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file from the child's abort


def test_a_v8_abort_under_ulimit_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "out" / "ledgers"
    folder.mkdir(parents=True)
    (folder / "t.jsonl").write_text("\n".join(ledger_factory.ledger_lines([1, 0, 1, 0], size=4)) + "\n")
    page = tmp_path / "report.html"
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "tarsim", "report", str(tmp_path / "out"), "--html", str(page)],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_limited,
        timeout=120,
        check=False,
    )
    if done.returncode == 0:  # pragma: no cover - a V8 that starts within 4 GB: nothing to test here
        pytest.skip("vl-convert's V8 started under a 4 GB address-space limit on this machine")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "V8" in done.stderr and "ulimit -v 4000000" in done.stderr and "ulimit -v unlimited" in done.stderr
    assert "Traceback" not in done.stderr and not page.exists()
