"""The house's structure: import-linter's contracts (.importlinter) kept, no import cycle, no module over 600 lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MAX_MODULE_LINES = 600


def test_import_contracts_are_kept():
    """Every contract in .importlinter (pipeline layers, measures never import the simulator, light readers)."""
    importlinter = pytest.importorskip("importlinter.cli")
    sys.path.insert(0, str(SRC))
    try:
        status = importlinter.lint_imports(config_filename=str(ROOT / ".importlinter"), no_cache=True)
    finally:
        sys.path.remove(str(SRC))
    assert status == importlinter.EXIT_STATUS_SUCCESS, "an import contract is broken: run `lint-imports`"


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    """No two modules import each other, directly or through others (imports inside functions count too)."""
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(SRC))
    try:
        graph = grimp.build_graph("tarsim", cache_dir=None)
    finally:
        sys.path.remove(str(SRC))
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert _cycles(edges) == []


def test_no_module_over_600_lines():
    long = {
        str(path.relative_to(SRC)): n
        for path in SRC.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
