"""The README's two set-up commands are the ones CI runs, verbatim, and they come first."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```\n(.*?)```", text, re.S)
    assert block, "README has no code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_two_setup_commands_that_ci_runs_verbatim():
    commands = readme_commands()
    assert len(commands) == 2
    assert "tarsim simulate" in commands[0] and "pytest" in commands[1]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for command in commands:
        assert command in ci_lines, f"{command!r} is not run verbatim by .ci/run"


def test_every_documented_subcommand_is_registered():
    from tarsim.cli import build_parser

    parser = build_parser()
    registered = set(parser._subparsers._group_actions[0].choices)
    documented = set(re.findall(r"`tarsim (\w+)", (ROOT / "README.md").read_text()))
    assert documented <= registered, documented - registered
