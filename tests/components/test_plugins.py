"""A third-party package adds a selection policy through the `tarsim.policies` entry point; the CLI and a sweep
use it by name. The package is "installed" as pip would leave it: a module on sys.path beside a *.dist-info folder
whose entry_points.txt importlib.metadata reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import demo_sweep_toml
from tarsim.cli import main
from tarsim.components import kind

pytestmark = pytest.mark.slow  # installs a plugin package

PLUGIN = '''
from dataclasses import dataclass

import numpy as np

from tarsim.policies import SelectionPolicy


@dataclass(frozen=True)
class LowestFirst(SelectionPolicy):
    """The lowest-scoring unjudged documents (a test plugin)."""

    name: str = "myplugin"

    def select(self, scores, candidates, k, rng):
        order = np.lexsort((candidates, scores[candidates]))
        return candidates[order][:k]
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder holding the plugin module and its dist-info, as `pip install` would leave them."""
    root = tmp_path_factory.mktemp("site")
    (root / "myplugin_policy.py").write_text(PLUGIN)
    info = root / "myplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tarsim.policies]\nmyplugin = myplugin_policy:LowestFirst\n")
    return root


def tarsim(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(src)])}
    command = [sys.executable, "-c", "import sys; from tarsim.cli import main; sys.exit(main())", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def installed(site, monkeypatch):
    """The plugin visible to this process too (the registry looks its entry points up again, then forgets it)."""
    policies = kind("policy")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(policies, "plugins_loaded", False)
    yield site
    policies.components.pop("myplugin", None)
    sys.modules.pop("myplugin_policy", None)


def judged(ledger: Path) -> list[str]:
    return [r["docid"] for r in map(json.loads, ledger.read_text().splitlines()) if r["type"] == "judgment"]


def test_a_plugin_policy_runs_from_the_cli(site, tmp_path, monkeypatch):
    common = ["simulate", "--topic", "T1", "--max-effort", "40", "--effort", "judge"]
    plugin = tarsim(site, *common, "--policy", "myplugin", "--out", "p", cwd=tmp_path)
    assert plugin.returncode == 0, plugin.stderr
    header = json.loads((tmp_path / "p" / "ledgers" / "T1.jsonl").read_text().splitlines()[0])
    assert header["config"]["policy"] == "myplugin"
    monkeypatch.chdir(tmp_path)
    assert main([*common, "--out", "r"]) == 0
    plugin_docs, relevance_docs = judged(tmp_path / "p/ledgers/T1.jsonl"), judged(tmp_path / "r/ledgers/T1.jsonl")
    assert len(plugin_docs) == len(relevance_docs) == 40
    assert plugin_docs[1:] != relevance_docs[1:]  # the plugin's choice, not relevance sampling's, after the seed


def test_a_plugin_is_listed(installed, capsys):
    assert main(["list", "policy"]) == 0
    assert "myplugin  The lowest-scoring unjudged documents (a test plugin)." in capsys.readouterr().out


def test_a_plugin_policy_runs_in_a_sweep(installed, tmp_path, monkeypatch):
    (tmp_path / "sweep.toml").write_text(demo_sweep_toml("myplugin"))
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "sweep.toml", "--out", "s", "--jobs", "1"]) == 0
    ledgers = sorted((tmp_path / "s" / "ledgers").iterdir())
    assert [p.name for p in ledgers] == ["demo__T1__myplugin__document-document__seed0.jsonl"]
    assert json.loads(ledgers[0].read_text().splitlines()[0])["config"]["policy"] == "myplugin"


def test_an_unknown_policy_lists_the_plugin(installed, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--policy", "myplugn", "--out", "x"]) == 2
    assert capsys.readouterr().err.strip().endswith("mix:SHARE[:other], myplugin (did you mean myplugin?)")
    assert not (tmp_path / "x").exists()


@pytest.fixture
def misfiled(site, monkeypatch):
    """The plugin's policy listed under the learners' entry-point group, as a packaging slip would list it."""
    from importlib.metadata import EntryPoint

    import tarsim.components.registry as registry

    learners = kind("learner")
    point = EntryPoint("myplugin", "myplugin_policy:LowestFirst", "tarsim.learners")
    real = registry.entry_points
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [point] if group == "tarsim.learners" else real(group=group)
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(learners, "plugins_loaded", False)
    yield
    learners.components.pop("myplugin", None)
    sys.modules.pop("myplugin_policy", None)


def test_a_plugin_of_the_wrong_kind_is_refused_when_loaded_not_at_its_first_use(
    misfiled, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--learner", "myplugin", "--out", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == (
        "tarsim: warning: plugin 'myplugin' (myplugin_policy:LowestFirst) LowestFirst is not a learner: "
        "it does not define estimator()"
    )
    assert err[1].startswith("tarsim: error: learner 'myplugin' unknown; accepted: bmi") and len(err) == 2
    assert not (tmp_path / "x").exists()
