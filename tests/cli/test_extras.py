"""Optional dependencies are extras (dask, legal, plot, xlsx): without one, the command that needs it prints one line
naming the extra and exits with status 2, before any work; the demo review needs none of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.errors import EXTRAS, MissingExtraError, TarsimError, require

SWEEP = """\
[sweep]
seeds = 1
policies = ["relevance"]
strategies = ["document/document"]
effort_models = ["judge"]

[[collections]]
path = "demo"
topics = ["T1"]
"""


def _sweep(tmp: Path) -> list[str]:
    (tmp / "sweep.toml").write_text(SWEEP, encoding="utf-8")
    return ["sweep", str(tmp / "sweep.toml"), "--backend", "dask", "--out", str(tmp / "out")]


def _xlsx(tmp: Path) -> list[str]:
    (tmp / "review.xlsx").write_bytes(b"")
    return ["data", "import", str(tmp / "review.xlsx"), str(tmp / "out")]


CASES = {
    # extra: (modules made unimportable, the command, what its one line says)
    "plot": (
        ["matplotlib"],
        lambda tmp: ["plot", str(tmp), "--out", str(tmp / "out.png")],
        "tarsim plot needs matplotlib",
    ),
    "legal": (["bm25s"], lambda tmp: ["retrieve", str(tmp), "--out", str(tmp / "out")], "tarsim retrieve needs bm25s"),
    "legal-bench": (["bm25s"], lambda tmp: ["bench", "pd", "--data", str(tmp)], "tarsim bench needs bm25s"),
    "dask": (["distributed", "dask"], _sweep, "tarsim sweep --backend dask needs dask[distributed]"),
    "xlsx": (["openpyxl"], _xlsx, "reading an Excel .xlsx file needs openpyxl"),
    "report": (
        ["altair"],
        lambda tmp: ["report", str(tmp), "--html", str(tmp / "out.png")],
        "tarsim report --html needs altair",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_missing_extra_is_one_line_naming_it(case, tmp_path, monkeypatch, capsys):
    modules, argv, says = CASES[case]
    extra = case.split("-")[0]
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    assert main(argv(tmp_path)) == 2
    captured = capsys.readouterr()
    assert (
        captured.err
        == f'tarsim: error: {says}: pip install "tarsim[{extra}]" (from a checkout: pip install ".[{extra}]")\n'
    )
    assert captured.out == ""
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.png").exists()  # refused before any work


def test_require_returns_the_module_or_raises_an_import_error_tarsim_reports(monkeypatch):
    import json

    assert require("json", "plot", "anything") is json
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(
        MissingExtraError,
        match=r'^plotting needs matplotlib: pip install "tarsim\[plot\]" '
        r'\(from a checkout: pip install "\.\[plot\]"\)$',
    ) as info:
        require("matplotlib", "plot", "plotting")
    assert isinstance(info.value, ImportError) and isinstance(info.value, TarsimError)
    assert sorted(EXTRAS) == ["dask", "legal", "plot", "report", "xlsx"]


def test_the_extras_are_declared_and_the_test_extra_pulls_them_all():
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    assert "tarsim[dask,legal,plot,report,xlsx]" in extras["test"]
    assert extras["all"] == ["tarsim[dask,legal,plot,report,xlsx]"]
    core = " ".join(project["dependencies"])
    assert not any(name in core for name in ("dask", "bm25s", "matplotlib", "openpyxl", "altair"))


BLOCKED = """
import sys
for name in ("dask", "distributed", "bm25s", "matplotlib", "openpyxl"):
    sys.modules[name] = None
from tarsim.cli import main
status = main(["simulate", "--topic", "T1", "--max-effort", "R", "--out", sys.argv[1]])
sys.exit(status)
"""


@pytest.mark.slow
def test_the_demo_review_needs_no_extra(tmp_path):
    done = subprocess.run([sys.executable, "-c", BLOCKED, str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "out" / "ledgers").glob("*.jsonl"))
