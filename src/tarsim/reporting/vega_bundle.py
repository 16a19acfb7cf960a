"""The Vega, Vega-Lite and vega-embed JavaScript the HTML report inlines, bundled by vl-convert in a child process.

vl-convert bundles with a V8 engine, which reserves several GB of virtual memory when it starts; under a lower
address-space limit (`ulimit -v`) V8 aborts the whole process with a core dump and no message. Run in a child
process, such an abort is the child's exit status, which becomes one line naming the cause and the fix.
"""

from __future__ import annotations

import signal
import subprocess
import sys

from tarsim.errors import ConfigError, TarsimError

CHILD = """
import sys
from altair.utils._importers import import_vl_convert, vl_version_for_vl_convert
try:
    converter = import_vl_convert()
except RuntimeError as error:
    print(error, file=sys.stderr)
    sys.exit(3)
sys.stdout.buffer.write(converter.javascript_bundle(vl_version=vl_version_for_vl_convert()).encode("utf-8"))
"""
"""The bundling, as the child runs it (exit 3: a vl-convert-python older than altair needs)."""


class BundleError(TarsimError):
    """vl-convert could not bundle the JavaScript (its V8 engine did not start, most often)."""


def _address_limit() -> str:
    """The address-space limit in force, as `ulimit -v` shows it (kB), or '' when there is none."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return ""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return "" if soft == resource.RLIM_INFINITY else f"{soft // 1024}"


class Bundling:
    """The bundling started in a child process (it takes seconds: the page's figures are built meanwhile); `result`
    waits for it. A context manager: leaving early ends the child."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )

    def __enter__(self) -> Bundling:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()

    def result(self) -> str:
        """The bundle, `</script` escaped; one line (BundleError, ConfigError) when the child failed."""
        out, err = self.process.communicate()
        return _checked(self.process.returncode, out, err)


def javascript_bundle() -> str:
    """vega-embed with Vega and Vega-Lite as one script (vl-convert's offline bundle), made in a child process."""
    with Bundling() as bundling:
        return bundling.result()


def _checked(returncode: int, out: bytes, err: bytes) -> str:
    """The child's bundle, or the one line saying why there is none and what to do."""
    if returncode == 3:  # a vl-convert-python older than this altair needs: one line, with the fix
        reason = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["vl-convert-python too old"]
        raise ConfigError(f'{reason[0]}: pip install --upgrade "tarsim[report]"')
    if returncode != 0:
        how = f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit {returncode}"
        limit = _address_limit()
        if limit:
            raise BundleError(
                f"vl-convert's JavaScript engine (V8), which bundles the page's Vega scripts, could not start ({how}): "
                f"it reserves several GB of virtual memory, more than the limit here (ulimit -v {limit}); raise the "
                "limit (`ulimit -v unlimited`) and run again"
            )
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise BundleError(f"vl-convert could not bundle the page's Vega scripts ({how}): {last[0]}")
    return out.decode("utf-8").replace("</script", "<\\/script")
