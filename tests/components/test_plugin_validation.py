"""Plugins validated when registered (issue 30): a preset without `settings`, a plugin that calls sys.exit or raises
on import, and one that takes a built-in's name each cost one warning naming the plugin and its distribution, and the
rest of `tarsim list` still works (a sys.exit silenced it; a preset without settings failed with AttributeError at
its first use; a plugin named like a built-in was ignored without a word)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.components import kind
from tarsim.components.registry import KINDS

MODULES = {
    "nosettings_preset": '''
class NoSettings:
    """A preset that forgot its settings."""

    name = "nosettings"
''',
    "exiting_plugin": "import sys\nsys.exit(3)\n",
    "raising_plugin": "raise RuntimeError('boom at import')\n",
    "shadow_plugin": "raise AssertionError('a plugin named like a built-in is never imported')\n",
}

ENTRY_POINTS = """\
[tarsim.presets]
nosettings = nosettings_preset:NoSettings

[tarsim.policies]
exiter = exiting_plugin:Policy
raiser = raising_plugin:Policy
relevance = shadow_plugin:Relevance
"""

DIST = "broken-plugins"


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """A distribution with four faulty plugins, importable by this process as `pip install` would leave it."""
    for module, text in MODULES.items():
        (tmp_path / f"{module}.py").write_text(text)
    info = tmp_path / "broken_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    for each in KINDS.values():
        monkeypatch.setattr(each, "plugins_loaded", False)
    yield tmp_path
    for module in MODULES:
        sys.modules.pop(module, None)
    kind("preset").components.pop("nosettings", None)


def warnings_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("tarsim: warning: ")]


def test_tarsim_list_survives_faulty_plugins_with_one_warning_each(broken, capsys):
    assert main(["list"]) == 0
    captured = capsys.readouterr()
    said = warnings_of(captured.err)
    assert len(said) == 4, captured.err
    assert all(f"of distribution {DIST!r}" in line for line in said)
    expected = {
        "'nosettings'": "NoSettings is not a preset: its 'settings' must be a Mapping, got none",
        "'exiter'": "failed to load: it called sys.exit(3)",
        "'raiser'": "failed to load: RuntimeError: boom at import",
        "'relevance'": "is refused: 'relevance' is already the name of a built-in policy",
    }
    for name, problem in expected.items():
        assert sum(name in line and problem in line for line in said) == 1, (name, said)
    for built_in in ("relevance", "uncertainty", "bmi", "asreview-default", "knee"):  # the rest is listed
        assert f"  {built_in}  " in captured.out
    assert "shadow_plugin" not in sys.modules  # refused by its name, never imported


def test_a_preset_without_settings_is_unknown_not_an_attribute_error(broken, tmp_path, capsys):
    assert main(["simulate", "--preset", "nosettings", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "NoSettings is not a preset" in err and "tarsim: error: preset 'nosettings' unknown" in err
    assert "AttributeError" not in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")
def test_a_builtin_name_keeps_the_builtin(broken):
    policies = kind("policy")
    policies.load(plugins=True)
    assert policies.components["relevance"].__module__.startswith("tarsim.")


def test_the_same_plugin_listed_twice_is_not_refused(broken, capsys, monkeypatch):
    """A distribution found twice on sys.path lists its entry points twice: the second is the same plugin."""
    (Path(broken) / "twice_plugin.py").write_text(
        'from tarsim.config.presets import Preset\n\nclass Twice(Preset):\n    """Twice."""\n\n    name = "twice"\n'
    )
    from importlib.metadata import EntryPoint

    import tarsim.components.registry as registry

    point = EntryPoint("twice", "twice_plugin:Twice", "tarsim.presets")
    monkeypatch.setattr(registry, "entry_points", lambda group: [point, point] if group == "tarsim.presets" else [])
    presets = kind("preset")
    try:
        with _no_warning():
            presets.load(plugins=True)
        assert "twice" in presets.components
    finally:
        presets.components.pop("twice", None)
        sys.modules.pop("twice_plugin", None)


class _no_warning:
    """A block that must raise no warning."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self.caught = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)
        assert not [str(w.message) for w in self.caught]
