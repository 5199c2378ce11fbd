"""cranfield._arrow: the helpers give Arrow's own results without loading pyarrow.compute or pandas."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from cranfield._arrow import compute, lookup_options, take_sorted, to_numpy


@pytest.mark.parametrize("kind", [pa.int8(), pa.int32(), pa.int64(), pa.uint16(), pa.float32(), pa.float64()])
@pytest.mark.parametrize("offset", [0, 3])
def test_to_numpy_with_nulls_is_arrows(kind, offset):
    values = [5, None, -1 if not pa.types.is_unsigned_integer(kind) else 7, 2, None, None, 0, 9, None, 4, 1]
    array = pa.array(values, type=kind).slice(offset)
    mine = to_numpy(array)
    reference = array.to_numpy(zero_copy_only=False)
    assert mine.dtype == reference.dtype
    np.testing.assert_array_equal(mine, reference)  # NaN where null, on both sides
    chunked = pa.chunked_array([array, array.slice(2)])
    np.testing.assert_array_equal(to_numpy(chunked), chunked.to_numpy())


def test_compute_calls_arrows_functions():
    ids = pa.chunked_array([pa.array(["q2", "q10", "q2"]), pa.array(["q7", "q10"])])
    assert compute("unique", ids).equals(pc.unique(ids))
    assert compute("sort_indices", ids).equals(pc.sort_indices(ids))
    assert compute("dictionary_encode", ids).equals(pc.dictionary_encode(ids))
    value_set = pa.array(["q10", "q7"])
    assert compute("index_in", ids, options=lookup_options(value_set)).equals(pc.index_in(ids, value_set=value_set))
    rows = np.array([0, 2, 3])
    assert take_sorted(ids, rows).to_pylist() == ["q2", "q2", "q7"]
    assert take_sorted(ids.chunk(0), np.array([1])).to_pylist() == ["q10"]


def test_index_in_is_arrows_with_minus_one_where_absent():
    from cranfield._arrow import index_in

    values = pa.chunked_array([pa.array(["q7", "q1", "q9"]), pa.array(["q10", "q7"])])
    value_set = pa.array(["q10", "q7", "q8"])
    reference = pc.index_in(values, value_set=value_set).to_pylist()
    assert index_in(values, value_set).tolist() == [-1 if r is None else r for r in reference] == [1, -1, -1, 0, 1]
    assert index_in(values, value_set).dtype == np.intp
