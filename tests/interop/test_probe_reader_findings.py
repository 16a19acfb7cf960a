"""Reader findings of a hostile probe (issue 30): each input was read silently as something it is not, or refused
with a message naming the wrong problem."""

from __future__ import annotations

import pytest

from tarsim.errors import InputError
from tarsim.interop.screening import read_screening_file


@pytest.mark.parametrize("digit", ["\uff11", "\u0661", "\uff10"], ids=["full-width 1", "arabic-indic 1", "full-width 0"])
def test_a_non_ascii_digit_label_is_refused(tmp_path, digit):
    """float() reads `１` and `١` as 1: the label was taken as included (qrels and runs refuse such digits)."""
    path = tmp_path / "review.csv"
    path.write_text(f"record_id,title,label_included\nR1,a,1\nR2,b,{digit}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: record_id 'R2': label_included is not 0 or 1: {digit!r}")
    assert "numbers are ASCII digits" in message
