"""The CLI only parses, calls the library and prints: no CLI module imports another's internals."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "tarsim" / "cli"
SHARED = {"tarsim.cli.common", "tarsim.cli.progress"}
"""CLI helpers every subcommand may import."""


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_cli_module_imports_another_cli_module():
    offenders = {
        path.name: sorted(name for name in _imported(path) if name.startswith("tarsim.cli.") and name not in SHARED)
        for path in sorted(CLI.glob("*.py"))
        if path.name not in ("__init__.py", "__main__.py")  # the entry point registers every subcommand
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_scan_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("def run():\n    from tarsim.cli.plot import replay_inputs\n", encoding="utf-8")
    assert "tarsim.cli.plot" in _imported(module)
