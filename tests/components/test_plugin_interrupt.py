"""A plugin raising KeyboardInterrupt on import (probe 4: `tarsim list` ended "tarsim: interrupted", exit 130) is a
plugin failure, one warning; a real SIGINT arriving while a plugin is imported still interrupts."""

from __future__ import annotations

import signal
import sys
import threading
from importlib.metadata import EntryPoint

import pytest

from tarsim.cli import main
from tarsim.components import kind
from tarsim.components.plugin_load import load_entry_point

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="SIGINT is watched in the main thread only"
)


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for module in ("kbint_plugin", "sigint_plugin"):
        sys.modules.pop(module, None)


def test_a_plugins_own_keyboard_interrupt_is_a_failed_plugin_not_an_interrupt(plugin_dir, monkeypatch, capsys):
    (plugin_dir / "kbint_plugin.py").write_text("raise KeyboardInterrupt\n")
    info = plugin_dir / "kbint-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kbint\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tarsim.policies]\nkbint = kbint_plugin:Policy\n")
    monkeypatch.setattr(kind("policy"), "plugins_loaded", False)
    assert main(["list", "policy"]) == 0
    err = capsys.readouterr().err
    assert (
        "plugin 'kbint' of distribution 'kbint' (kbint_plugin:Policy) failed to load: it raised KeyboardInterrupt"
        in err
    )
    assert "interrupted" not in err.replace("KeyboardInterrupt", "")


def test_a_real_sigint_during_a_plugins_import_still_interrupts(plugin_dir):
    # a guard (passes on the old code too): the fix above must not swallow a real Ctrl-C
    (plugin_dir / "sigint_plugin.py").write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n"
    )
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        load_entry_point(EntryPoint("sigint", "sigint_plugin:Policy", "tarsim.policies"))
    assert signal.getsignal(signal.SIGINT) is before
