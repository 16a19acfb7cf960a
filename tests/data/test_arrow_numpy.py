"""pyarrow <-> numpy conversions that avoid pyarrow's pandas-importing paths give pyarrow's values."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from tarsim.data.arrow_numpy import from_numpy, string_array, to_numpy


def test_to_numpy_reads_sliced_and_chunked_arrays():
    assert to_numpy(pa.array([1, 2, 3, 4], pa.int64()).slice(1, 2)).tolist() == [2, 3]
    assert to_numpy(pa.array([5, 6, 7], pa.int32()).slice(2)).tolist() == [7]
    assert to_numpy(pa.chunked_array([[1.5, 2.5], [3.5]], pa.float64())).tolist() == [1.5, 2.5, 3.5]


def test_to_numpy_puts_the_given_value_at_nulls():
    found = pc.index_in(pa.array(["b", "x", "a", "y", "b"] * 3), value_set=pa.array(["a", "b"]))
    assert to_numpy(found.slice(3), null=-1).tolist() == [-1, 1, 1, -1, 0, -1, 1, 1, -1, 0, -1, 1]
    with pytest.raises(ValueError, match="nulls"):
        to_numpy(found)


def test_from_numpy_and_string_array_give_pyarrow_arrays():
    assert from_numpy(np.arange(3)).equals(pa.array([0, 1, 2], pa.int64()))
    assert from_numpy(np.array([0.5, -1.0])[::-1]).to_pylist() == [-1.0, 0.5]
    names = ["d1", "", "d\u00e9j\u00e0", "\U0001f600"]
    assert string_array(names).equals(pa.array(names, pa.string()))
    assert string_array([]).to_pylist() == []
