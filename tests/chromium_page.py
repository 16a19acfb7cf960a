"""Open a local page in a real headless Chromium over the DevTools protocol (websocket-client): collect console
errors and uncaught exceptions, evaluate JavaScript in it, and take a full-page screenshot. `chromium_or_skip`
gives the browser's path or skips the test with the reason (Debian's `chromium` package; .ci/run installs it)."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium_or_skip() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no headless Chromium installed (apt-get install chromium; .ci/run installs it)")


class Page:
    """One tab of a headless Chromium started for it; use as a context manager (the browser is ended after)."""

    def __init__(self, browser: str, width: int = 1100, height: int = 900):
        websocket = pytest.importorskip("websocket", reason="websocket-client (the test extra) drives Chromium")
        self._profile = tempfile.TemporaryDirectory()
        self._process = subprocess.Popen(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.width = width
        port = self._port(Path(self._profile.name) / "DevToolsActivePort")
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(target for target in targets if target["type"] == "page")
        self._socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self._ids = itertools.count(1)
        self.errors: list[str] = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(method)

    def _port(self, file: Path, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if file.exists() and file.read_text().strip():
                return int(file.read_text().split()[0])
            if self._process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self._process.returncode} before it listened")
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port in 30 s")

    def _event(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description") or details.get("text", ""))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"]["text"])

    def call(self, method: str, **params) -> dict:
        ident = next(self._ids)
        self._socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path, ready: str, timeout: float = 60.0) -> None:
        """Load a file and wait until the JavaScript expression `ready` is truthy."""
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + timeout
        while not self.evaluate(ready):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path}: not ready ({ready}) after {timeout:.0f} s; errors: {self.errors}")
            time.sleep(0.2)

    def screenshot(self) -> bytes:
        """A PNG of the whole page (the viewport stretched to the page's height)."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self.call(
            "Emulation.setDeviceMetricsOverride", width=self.width, height=height, deviceScaleFactor=1, mobile=False
        )
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._socket.close()
        finally:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
            self._profile.cleanup()
