"""`cache info` counts what `cache clear` removes (probe 4: a foreign `features-zzzz.npz` was counted among the
feature entries, yet `cache clear` left it as not tarsim's)."""

from __future__ import annotations

import pytest

from tarsim.cli import main

FOREIGN = {
    "features-zzzz.npz": b"not an npz",  # the glob's name, not tarsim's exact one
    f"features-{'a' * 24}-{'b' * 16}-v1.npz": b"PK\x03\x04 someone else's zip",  # tarsim's name, not its content
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_cache_info_counts_a_foreign_entry_among_the_other_files_as_cache_clear_judges_it(tmp_path, capsys, name):
    (tmp_path / name).write_bytes(FOREIGN[name])
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0 feature entries, 0 sentence store(s), 0 temporary file(s) of unfinished writes; 0 file(s)" in out, out
    assert f"1 other file(s), not tarsim's (`cache clear` leaves them): {name} (" in out, out
    assert main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert f"left 1 file(s) tarsim did not write: {name}" in capsys.readouterr().out
    assert (tmp_path / name).exists()
