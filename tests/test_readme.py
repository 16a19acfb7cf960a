"""The README's two set-up commands are the ones CI runs, verbatim, and they come first; every command and flag the
README and the usage reference show is one the CLI accepts; the README stays short and its links resolve."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USAGE = ROOT / "docs" / "usage.md"
README_WORD_LIMIT = 1100  # issue 29: a README to scan, under 1,100 words as `wc -w` counts them


def readme_commands() -> list[str]:
    text = README.read_text()
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
    registered = set(subcommands(build_parser()))
    for page in (README, USAGE):
        documented = {name for name in re.findall(r"`tarsim (\w+)", page.read_text()) if not name.isupper()}
        assert documented <= registered, (page.name, documented - registered)


def shown_command_lines(text: str) -> list[str]:
    """Each `tarsim ...` command line of the page: in shell code blocks (continuations joined, comments cut) and in
    inline code."""
    lines = []
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if language not in ("", "sh", "bash", "console"):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("tarsim "):
                lines.append(line.split("  #", 1)[0])
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    lines += [span for span in re.findall(r"`([^`\n]+)`", prose) if span.startswith("tarsim ")]
    return lines


def build_parser(command: str | None = None):
    """tarsim's parser; only `command`'s options are filled in (the others list their help only)."""
    from tarsim.cli import build_parser

    return build_parser(command)


def subcommands(parser) -> dict:
    return parser._subparsers._group_actions[0].choices if parser._subparsers else {}


@pytest.mark.parametrize("page", [README, USAGE], ids=lambda page: page.name)
def test_every_flag_shown_is_accepted_by_its_subcommand(page):
    root = build_parser()
    checked = 0
    for line in shown_command_lines(page.read_text()):
        words = shlex.split(line.replace("|", " "), comments=False)[1:]
        if not words or words[0].isupper():  # `tarsim COMMAND --help`: a placeholder
            continue
        assert words[0] in subcommands(root), f"{page.name}: {line!r} names no subcommand"
        parser, path = build_parser(words[0]), ["tarsim"]
        while words and words[0] in subcommands(parser):
            path.append(words[0])
            parser = subcommands(parser)[words.pop(0)]
        options = set(parser._option_string_actions)
        for word in words:
            flag = word.strip("[]").split("=", 1)[0]
            if re.fullmatch(r"--?[A-Za-z][\w-]*", flag):
                assert flag in options, f"{page.name}: {' '.join(path)} has no option {flag} ({line!r})"
                checked += 1
    assert checked, f"{page.name} shows no tarsim option"


def test_readme_is_short_and_its_links_resolve():
    text = README.read_text()
    assert len(text.split()) < README_WORD_LIMIT, f"README has {len(text.split())} words"
    assert "DESIGN.md" not in text, "the README cites a file the repository does not hold"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which is not in the repository"
