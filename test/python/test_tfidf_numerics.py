"""TfIdfVectorizer compiled to each backend, run on the reference CPU runner and compared with
onnxruntime: 1- to 3-grams with skips, TF / IDF / TFIDF with weights, 1-D and 2-D inputs (Linalg
with a symbolic batch dim), a pool whose columns are permuted and leave one column unused.
Counts are small integers: the comparison is exact.
"""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
# 4 unigrams, 3 bigrams, 2 trigrams; columns permuted, column 5 unused.
POOL = dict(pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 3, 3, 3, 6, 7, 5],
            ngram_counts=[0, 4, 10], ngram_indexes=[9, 0, 1, 2, 3, 4, 6, 7, 8])
WEIGHTS = [0.5, 1.0, 2.0, 0.25, 1.5, 3.0, 0.75, 1.25, 2.5]
CASES = {
    "tf-1-to-3-skip2": dict(mode="TF", min_gram_length=1, max_gram_length=3, max_skip_count=2),
    "idf-2-to-3-skip1": dict(mode="IDF", min_gram_length=2, max_gram_length=3, max_skip_count=1, weights=WEIGHTS),
    "tfidf-1-to-2-skip3": dict(mode="TFIDF", min_gram_length=1, max_gram_length=2, max_skip_count=3,
                               weights=WEIGHTS),
    "tfidf-3-skip0": dict(mode="TFIDF", min_gram_length=3, max_gram_length=3, max_skip_count=0),
}


def _model(case: str, shape, element, static: bool):
    node = helper.make_node("TfIdfVectorizer", ["X"], ["Y"], **POOL, **CASES[case])
    dims = list(shape) if static or len(shape) == 1 else ["batch", shape[1]]
    out = [*dims[:-1], 10]
    graph = helper.make_graph([node], "tfidf", [helper.make_tensor_value_info("X", element, dims)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, out)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_tfidf_matches_onnxruntime(case, rank, backend):
    rng = np.random.default_rng(sorted(CASES).index(case))
    shape = (14,) if rank == 1 else (3, 14)
    dtype, element = (np.int32, TensorProto.INT32) if rank == 1 else (np.int64, TensorProto.INT64)
    x = rng.choice([2, 3, 4, 5, 6, 7, 8], size=shape).astype(dtype)
    session = onnxruntime.InferenceSession(_model(case, shape, element, True).SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"X": x})
    module = onnx_torch_mlir.compile(_model(case, shape, element, backend != "linalg-on-tensors"), backend)
    (actual,) = runtime.run(module, [x], input_dialect=backend)
    np.testing.assert_array_equal(actual, expected)
