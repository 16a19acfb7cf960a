"""`tarsim data list | fetch`: the registry, pooch downloads from a local HTTP server, checksum and network errors."""

from __future__ import annotations

import functools
import hashlib
import http.server
import socket
import threading
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.datasets import catalogue as registry
from tarsim.datasets.catalogue import REGISTRY, Entry, RemoteFile


@pytest.fixture()
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving files the test writes."""
    root = tmp_path / "served"
    (root / "fr").mkdir(parents=True)
    (root / "fr" / "corpus.csv").write_text("id,article\n1,Le bail.\n", encoding="utf-8")
    (root / "data.zip").write_bytes(b"PK fake archive bytes" * 100)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()
    httpd.server_close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def register(monkeypatch, entry: Entry) -> None:
    monkeypatch.setitem(REGISTRY, entry.name, entry)


def one_error_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    lines = [line for line in lines if line.startswith("tarsim:")]
    assert len(lines) == 1, lines
    return lines[0]


def test_list_names_every_dataset(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TARSIM_DATA_DIR", str(tmp_path))
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert f"cache: {tmp_path}" in out
    for name in ("eu2uk", "uk2eu", "bbsard", "pd", "reuters21578", "20newsgroups", "srd"):
        assert f"\n{name}: " in out
    assert "8afc26fbd3559aa800ce0adb3c35c0e4c2c99b93529bc20d5f32ce44f55ba286" in out
    assert "checksum unknown" in out and "no known download address" in out


@pytest.mark.slow
def test_fetch_downloads_and_verifies(server, tmp_path, monkeypatch, capsys) -> None:
    base, root = server
    monkeypatch.setenv("TARSIM_DATA_DIR", str(tmp_path / "cache"))
    register(
        monkeypatch,
        Entry(
            "toy",
            "toy",
            base,
            "CC0",
            (
                RemoteFile(f"{base}/data.zip", "data.zip", sha256(root / "data.zip")),
                RemoteFile(f"{base}/fr/corpus.csv", "fr/corpus.csv"),  # checksum unknown: downloaded unverified
            ),
        ),
    )
    assert main(["data", "fetch", "toy", "--quiet"]) == 0
    target = tmp_path / "cache" / "toy"
    assert (target / "data.zip").read_bytes() == (root / "data.zip").read_bytes()
    assert (target / "fr" / "corpus.csv").read_text(encoding="utf-8") == "id,article\n1,Le bail.\n"
    # a second fetch finds the verified file in the cache and does not download it again
    (root / "data.zip").unlink()
    assert main(["data", "fetch", "toy", "--quiet"]) == 0


@pytest.mark.slow
def test_fetch_checksum_mismatch(server, tmp_path, monkeypatch, capsys) -> None:
    base, _ = server
    register(monkeypatch, Entry("toy", "toy", base, "CC0", (RemoteFile(f"{base}/data.zip", "data.zip", "0" * 64),)))
    assert main(["data", "fetch", "toy", "--quiet", "--dir", str(tmp_path / "d")]) == 2
    line = one_error_line(capsys)
    assert f"checksum mismatch for {base}/data.zip" in line and "place it at" in line
    assert not (tmp_path / "d").exists()  # no empty folder that a reader would take for the dataset


def test_fetch_without_network_names_url_and_manual_placement(tmp_path, monkeypatch, capsys) -> None:
    with socket.socket() as probe:  # a port nobody listens on: the connection is refused, like no network
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/eu2uk.zip"
    register(monkeypatch, Entry("offline", "x", url, "x", (RemoteFile(url, "eu2uk.zip", "a" * 64),)))
    monkeypatch.setenv("TARSIM_DATA_DIR", str(tmp_path))
    assert main(["data", "fetch", "offline", "--quiet"]) == 2
    line = one_error_line(capsys)
    assert f"cannot download {url}" in line and f"place it at {tmp_path / 'offline' / 'eu2uk.zip'}" in line
    assert list(tmp_path.iterdir()) == []  # the dataset's folder was not left behind, empty


def test_fetch_without_address_and_unknown_name(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TARSIM_DATA_DIR", str(tmp_path))
    assert main(["data", "fetch", "pd"]) == 2
    assert "no download address is known" in one_error_line(capsys)
    assert main(["data", "fetch", "nonesuch"]) == 2
    assert "unknown dataset 'nonesuch'" in one_error_line(capsys)


def test_default_cache_is_platformdirs_user_data(monkeypatch) -> None:
    import platformdirs

    monkeypatch.delenv("TARSIM_DATA_DIR", raising=False)
    assert registry.data_dir() == Path(platformdirs.user_data_dir("tarsim")) / "datasets"
