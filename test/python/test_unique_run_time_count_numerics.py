"""Unique whose number of distinct values is only known at run time (outputs declared with a
dynamic size), on Linalg and StableHLO, run on the reference CPU runner and on IREE and compared
with onnxruntime. One compiled module runs on inputs with different numbers of distinct values
(one, some, all), so the count is read from the data, not fixed at compile time. TOSA refuses the
run-time count with a message that says why.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from consumers import program

BACKENDS = ("linalg-on-tensors", "stablehlo")
CONSUMERS = ("reference", "iree")
OUTPUTS = ("Y", "indices", "inverse_indices", "counts")


def _model(shape, axis=None, sorted_=1) -> onnx.ModelProto:
    """Unique (opset 11) of a float input; every output declared with a run-time size."""
    attributes = {"sorted": sorted_} if axis is None else {"sorted": sorted_, "axis": axis}
    node = helper.make_node("Unique", ["X"], list(OUTPUTS), **attributes)
    y_shape = ["distinct"] if axis is None else [("distinct" if i == axis % len(shape) else s)
                                                for i, s in enumerate(shape)]
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, y_shape),
               helper.make_tensor_value_info("indices", TensorProto.INT64, ["distinct"]),
               helper.make_tensor_value_info("inverse_indices", TensorProto.INT64, [None]),
               helper.make_tensor_value_info("counts", TensorProto.INT64, ["distinct"])]
    graph = helper.make_graph([node], "unique", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(shape))],
                              outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=10)


def _feeds(shape, seed: int, distinct_values: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"X": rng.integers(0, distinct_values, shape).astype(np.float32)}


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


CASES = {
    "flat-sorted": ((12,), None, 1),
    "flat-first-occurrence": ((3, 4), None, 0),
    "rows-sorted": ((6, 2), 0, 1),
    "columns-first-occurrence": ((2, 5), -1, 0),
}
# Seeds and value ranges: one distinct value, a few, (nearly) all distinct.
RUNS = [(1, 1), (2, 2), (3, 1000)]


@pytest.mark.parametrize("name, backend, consumer",
                         [(name, backend, consumer) for name in CASES for backend in BACKENDS for consumer in CONSUMERS
                          if consumer == "reference" or name in ("flat-sorted", "rows-sorted")])
def test_run_time_count_matches_onnxruntime(name, backend, consumer):
    shape, axis, sorted_ = CASES[name]
    model = _model(shape, axis, sorted_)
    compiled = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
    counts = set()
    for seed, values in RUNS:
        feeds = _feeds(shape, seed, values)
        expected = _expected(model, feeds)
        outputs = compiled(*feeds.values())
        assert len(outputs) == len(expected)
        for got, want in zip(outputs, expected):
            assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want)
        counts.add(expected[3].shape[0])
    assert len(counts) == len(RUNS)  # the count really changes with the data


def test_stablehlo_cuts_the_candidates_with_a_dynamic_slice():
    text = str(onnx_torch_mlir.compile(_model((12,)), "stablehlo"))
    assert "stablehlo.real_dynamic_slice" in text and "torch." not in text


def test_run_time_count_fails_clearly_on_tosa():
    with pytest.raises(Exception, match="known only at run time .* tosa needs static shapes"):
        onnx_torch_mlir.compile(_model((12,)), "tosa")
