"""A plugin's preset whose settings are no review settings (probe 4: `batch = -5` gave "batch size '-5': size must be
..." naming neither the preset nor its plugin): refused in one line naming both."""

from __future__ import annotations

import re
import sys

import pytest

from tarsim.cli import main
from tarsim.components import kind
from tarsim.config.presets import apply_preset
from tarsim.errors import ConfigError

MODULE = '''
class BadBatch:
    """A preset with a batch size below 1."""

    name = "badbatch"
    settings = {"batch": -5}


class Misspelt:
    """A preset with a key that is no review setting."""

    name = "misspelt"
    settings = {"batchsize": 10}


class Fine:
    """A preset whose settings ReviewConfig takes as given (seeding by name, batch as a number)."""

    name = "fine"
    settings = {"seeding": "random", "batch": 10}
'''


@pytest.fixture
def bad_presets(tmp_path, monkeypatch):
    (tmp_path / "bad_presets.py").write_text(MODULE)
    info = tmp_path / "bad_presets-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-presets\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[tarsim.presets]\nbadbatch = bad_presets:BadBatch\nmisspelt = bad_presets:Misspelt\nfine = bad_presets:Fine\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kind("preset"), "plugins_loaded", False)
    yield
    sys.modules.pop("bad_presets", None)
    for name in ("badbatch", "misspelt", "fine"):
        kind("preset").components.pop(name, None)
        kind("preset").origins.pop(name, None)


def test_a_plugin_presets_bad_setting_names_the_preset_and_its_plugin(bad_presets, tmp_path, capsys):
    plugin = "plugin 'badbatch' of distribution 'bad-presets' (bad_presets:BadBatch)"
    with pytest.raises(ConfigError, match=rf"^preset 'badbatch' \({re.escape(plugin)}\): its settings: batch size"):
        apply_preset("badbatch", {})
    with pytest.raises(
        ConfigError, match=r"^preset 'misspelt' \(plugin .*\): setting 'batchsize' is no review setting"
    ):
        apply_preset("misspelt", {})
    assert apply_preset("fine", {})["batch"] == 10  # a good plugin preset is not refused
    code = main(["simulate", "--preset", "badbatch", "--collection", str(tmp_path / "none"), "--topic", "t"])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"tarsim: error: preset 'badbatch' ({plugin}): its settings: batch size '-5'"
    ), err
    assert "Traceback" not in err
