"""What a benchmark script needs beyond tarsim's core, checked before any work: a missing package is named in one
line with the command that installs it (`pip install ".[bench]"`, the extra that holds it), and the script exits
with status 2 - not an ImportError after minutes of computing (benchmarks/zhang2018.py lost its table that way).

    from extras import require_extras  # same folder
    require_extras(__file__, "tabulate", "matplotlib")
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

WHERE = {
    # import name: what installs it (a tarsim extra in brackets, or a pip requirement of a peer tool)
    "tabulate": "[bench]",
    "ranx": "[bench]",
    "pysbd": "[bench]",
    "blingfire": "[bench]",
    "sentencex": "[bench]",
    "segtok": "[bench]",
    "nltk": "[bench]",
    "matplotlib": "[plot]",
    "bm25s": "[legal]",
    "numba": "[hical]",
    "ir_measures": "[test]",
    "asreview": "asreview",
    "asreviewcontrib.insights": "asreview-insights",
    "tarexp": "tarexp",
}


def missing_extras(*modules: str) -> dict[str, str]:
    """The modules of `modules` that cannot be imported, each with what installs it."""
    missing = {}
    for module in modules:
        try:
            found = sys.modules.get(module, True) is not None and importlib.util.find_spec(module) is not None
        except (ModuleNotFoundError, ValueError):  # a dotted name whose parent is absent; a module blocked by None
            found = False
        if not found:
            missing[module] = WHERE.get(module, module.split(".")[0])
    return missing


def install_command(missing: dict[str, str]) -> str:
    """One pip command for every missing package: tarsim's extras together, peer tools by name."""
    extras = sorted({how.strip("[]") for how in missing.values() if how.startswith("[")})
    others = sorted({how for how in missing.values() if not how.startswith("[")})
    parts = [f'".[{",".join(extras)}]"'] if extras else []
    return "pip install " + " ".join(parts + others)


def require_extras(script: str, *modules: str) -> None:
    """Exit with status 2 and one line on stderr when any of `modules` is missing (before the script does work)."""
    missing = missing_extras(*modules)
    if missing:
        name = f"benchmarks/{Path(script).name}"
        print(f"{name} needs {', '.join(missing)}: {install_command(missing)}", file=sys.stderr)
        raise SystemExit(2)
