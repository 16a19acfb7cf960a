"""pyarrow arrays to and from numpy and Python lists without importing pandas.

pyarrow's own conversions (`to_numpy`, `pa.array`) import pandas whenever it is installed, about 0.4 s that
`tarsim evaluate` otherwise never pays; fixed-width columns without nulls need no conversion, only their buffer.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_TYPES = {
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.float64(): np.float64,
}


def to_numpy(array: pa.Array | pa.ChunkedArray, null: int | float | None = None) -> np.ndarray:
    """The values of a numeric array as numpy (a read-only view of its buffer), `null` where it has none."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    dtype = np.dtype(_TYPES[array.type])
    values = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    if not array.null_count:
        return values
    if null is None:
        raise ValueError("an array with nulls needs a value for them")
    bits = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
    return np.where(bits[array.offset : array.offset + len(array)].astype(bool), values, null)


def from_numpy(values: np.ndarray) -> pa.Array:
    """A pyarrow array over a 1-d numeric numpy array (int64 or float64), without copying a contiguous one."""
    values = np.ascontiguousarray(values)
    arrow_type = {np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}[values.dtype]
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])


def string_array(values: list[str]) -> pa.Array:
    """A pyarrow string array of Python strings (UTF-8)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(value) for value in encoded], out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        return pa.array(values, pa.string())  # beyond 32-bit offsets: pyarrow's own conversion
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(values), buffers)
