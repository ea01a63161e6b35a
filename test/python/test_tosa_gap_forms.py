"""TOSA forms for cases that pass on Linalg and failed on TOSA; each model is compiled to TOSA, run on
the reference runner and on IREE, and compared with onnxruntime.

- Empty values the graph returns (transforms/tosa/empty_tensors.py): TOSA has no zero-sized tensor,
  so they are empty `arith.constant`s and the ops computing them are gone.
- Compress and NonZero (conversion/onnx_to_torch/selection.py): the positions of the true elements
  by comparing prefix counts, with their number fixed by the declared result (torch-mlir's
  aten.nonzero decomposes to an aten.scatter_add its TOSA lowering does not take).
- A dilated MaxPool whose strides are multiples of its dilations (conversion/onnx_to_torch/nn_pool.py):
  a pool without dilation over every dilation-th element (TOSA's max_pool2d has no dilation).
- `aten.tensor` of constant ints (a Shape in a SequenceMap body) as a literal
  (transforms/torch/constant_int_tensors.py): TorchToTosa lowers no `aten.tensor`.
- Unsigned TopK (conversion/onnx_to_torch/reduction_axis.py): the selection on int64 in order
  (uint64 with its top bit flipped); torch-mlir's sort-based topk has no TOSA lowering.
- A Loop with a run-time trip count whose scan outputs' declared types fix their length
  (conversion/onnx_to_torch/control_flow/tensor_loops.py): a buffer of that length written in place
  (torch-mlir's TOSA lowering takes no carried tensor whose size changes), and every `tosa.while_loop`
  reads only its arguments (transforms/tosa/isolated_loops.py), as the TOSA specification wants.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree
from torch_mlir import ir

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import tosa_validation  # noqa: E402

ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
              np.dtype(np.bool_): TensorProto.BOOL}
CONSUMERS = ("reference", "iree")


def _model(nodes, inputs: dict, outputs: dict, initializers: dict, opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "tosa_gap_forms",
        [helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype], list(array.shape)) for name, array in inputs.items()],
        [helper.make_tensor_value_info(name, element, None) for name, element in outputs.items()],
        initializer=[numpy_helper.from_array(array, name) for name, array in initializers.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def empty_split_parts():
    """A Split with a zero-sized part, a Slice past the end, a ConstantOfShape of a zero dim, next to
    a non-empty result computed from the same input."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    nodes = [
        helper.make_node("Split", ["x", "split"], ["head", "none", "tail"], axis=0),
        helper.make_node("Slice", ["x", "starts", "ends"], ["past_end"]),
        helper.make_node("ConstantOfShape", ["zero_shape"], ["no_ints"],
                         value=numpy_helper.from_array(np.array([5], np.int64))),
        helper.make_node("Neg", ["tail"], ["y"]),
    ]
    initializers = {"split": np.array([1, 0, 3], np.int64), "starts": np.array([7], np.int64),
                    "ends": np.array([9], np.int64), "zero_shape": np.array([2, 0], np.int64)}
    outputs = {"head": TensorProto.FLOAT, "none": TensorProto.FLOAT, "past_end": TensorProto.FLOAT,
               "no_ints": TensorProto.INT64, "y": TensorProto.FLOAT}
    return _model(nodes, {"x": x}, outputs, initializers), [x]


def compress_run_time_condition():
    """Compress along axis 1 with a run-time condition shorter than the axis (the declared result
    fixes the count of true elements), and without axis (the flattened input)."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    condition = np.array([False, True, True, False, True], np.bool_)
    flat_condition = np.array([True] + [False] * 10 + [True, True], np.bool_)
    nodes = [helper.make_node("Compress", ["x", "condition"], ["columns"], axis=1),
             helper.make_node("Compress", ["x", "flat_condition"], ["elements"])]
    graph = helper.make_graph(
        nodes, "compress",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6]),
         helper.make_tensor_value_info("condition", TensorProto.BOOL, [5]),
         helper.make_tensor_value_info("flat_condition", TensorProto.BOOL, [13])],
        [helper.make_tensor_value_info("columns", TensorProto.FLOAT, [4, 3]),
         helper.make_tensor_value_info("elements", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=9)
    return model, [x, condition, flat_condition]


def non_zero_float_3d():
    """NonZero of a float [2, 3, 4] input with five non-zero elements (a -0.0 is zero)."""
    x = np.zeros((2, 3, 4), np.float32)
    x[0, 0, 1], x[0, 2, 3], x[1, 0, 0], x[1, 1, 2], x[1, 2, 3], x[1, 2, 2] = 1.5, -2, 3, np.inf, 0.25, -0.0
    graph = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"])], "non_zero",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [3, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=9)
    return model, [x]


def dilated_max_pools():
    """Dilated MaxPools whose windows are too large to unroll (over 128 elements), strides multiples
    of the dilations: 1-D with asymmetric pads and ceil_mode, 2-D with a stride of twice the dilation
    on one dim."""
    x1 = np.sin(np.arange(700, dtype=np.float32) * 0.37).reshape(1, 1, 700)
    x2 = np.cos(np.arange(2 * 3 * 40 * 50, dtype=np.float32) * 0.11).reshape(2, 3, 40, 50)
    nodes = [
        helper.make_node("MaxPool", ["x1"], ["y1"], kernel_shape=[150], strides=[6], dilations=[3], pads=[5, 9],
                         ceil_mode=1),
        helper.make_node("MaxPool", ["x2"], ["y2"], kernel_shape=[12, 12], strides=[2, 4], dilations=[2, 2],
                         pads=[1, 3, 2, 0]),
    ]
    return _model(nodes, {"x1": x1, "x2": x2}, {"y1": TensorProto.FLOAT, "y2": TensorProto.FLOAT}, {}), [x1, x2]


def shapes_of_a_sequence():
    """A SequenceMap whose body takes a Shape: converted once for the sequence's elements, the body
    builds the shape from its dims (`aten.tensor`), constants once inlined."""
    a = np.ones((2, 3), np.float32)
    c = np.ones((4, 5), np.float32)
    body = helper.make_graph(
        [helper.make_node("Shape", ["element"], ["shape"])], "body",
        [helper.make_tensor_value_info("element", TensorProto.FLOAT, ["rows", "columns"])],
        [helper.make_tensor_value_info("shape", TensorProto.INT64, [2])])
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "c"], ["sequence"]),
        helper.make_node("SequenceMap", ["sequence"], ["shapes"], body=body),
        helper.make_node("ConcatFromSequence", ["shapes"], ["y"], axis=0, new_axis=1),
    ]
    return _model(nodes, {"a": a, "c": c}, {"y": TensorProto.INT64}, {}), [a, c]


def unsigned_top_k():
    """TopK of uint64 values across 2^63 (largest) and of uint32 values across 2^31 (smallest), ties
    in index order."""
    x64 = np.array([[0, 2**63, 2**64 - 1, 5], [2**63 - 1, 7, 2**63 + 1, 7]], np.uint64)
    x32 = np.array([[2**32 - 1, 3, 2**31, 3], [1, 2**31 - 1, 0, 2**31 + 5]], np.uint32)
    nodes = [helper.make_node("TopK", ["x64", "k"], ["v64", "i64"], axis=1),
             helper.make_node("TopK", ["x32", "k"], ["v32", "i32"], axis=1, largest=0)]
    graph = helper.make_graph(
        nodes, "unsigned_top_k",
        [helper.make_tensor_value_info("x64", TensorProto.UINT64, [2, 4]),
         helper.make_tensor_value_info("x32", TensorProto.UINT32, [2, 4])],
        [helper.make_tensor_value_info(name, element, [2, 3]) for name, element in
         (("v64", TensorProto.UINT64), ("i64", TensorProto.INT64), ("v32", TensorProto.UINT32),
          ("i32", TensorProto.INT64))],
        initializer=[numpy_helper.from_array(np.array([3], np.int64), "k")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=9), [x64, x32]


def loop_with_run_time_trip_count():
    """A Loop whose trip count is a graph input, with a carried sum and two scan outputs (a [2] row
    and a scalar) whose declared types fix their length (4): the second through the Cast that reads
    it, as in an expanded Range."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["step"], to=TensorProto.FLOAT),
         helper.make_node("Add", ["total_in", "step"], ["total_out"]),
         helper.make_node("Mul", ["x", "step"], ["row"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["total_out"], ["scalar_row"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("total_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("total_out", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scalar_row", TensorProto.FLOAT, [])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trip_count", "", "total"], ["final", "rows", "totals_undeclared"], body=body),
         helper.make_node("Cast", ["totals_undeclared"], ["totals"], to=TensorProto.FLOAT16)],
        "loop",
        [helper.make_tensor_value_info("trip_count", TensorProto.INT64, []),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("final", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("rows", TensorProto.FLOAT, [4, 2]),
         helper.make_tensor_value_info("totals", TensorProto.FLOAT16, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=9)
    return model, [np.array(4, np.int64), np.array(0.5, np.float32), np.array([1.5, -2], np.float32)]


MODELS = {function.__name__: function for function in (empty_split_parts, compress_run_time_condition,
                                                       non_zero_float_3d, dilated_max_pools, shapes_of_a_sequence,
                                                       unsigned_top_k, loop_with_run_time_trip_count)}


def _onnxruntime(model: onnx.ModelProto, arrays: list) -> list:
    """onnxruntime's outputs; ONNX's reference where onnxruntime has no kernel (TopK on uint32)."""
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented:
        evaluator = ReferenceEvaluator(model)
        return evaluator.run(None, {name: array for name, array in zip(evaluator.input_names, arrays)})
    return session.run(None, {entry.name: array for entry, array in zip(session.get_inputs(), arrays)})


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def compile_model(name):
        if name not in cache:
            model, arrays = MODELS[name]()
            cache[name] = (onnx_torch_mlir.compile(model, "tosa"), model, arrays)
        return cache[name]

    return compile_model


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("name", list(MODELS))
def test_matches_onnxruntime(compiled, name, consumer):
    module, model, arrays = compiled(name)
    if consumer == "iree":
        outputs = compile_with_iree(module, "tosa")(*arrays)
    else:
        outputs = runtime.run(module, arrays, input_dialect="tosa")
    expected = _onnxruntime(model, arrays)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        if got.dtype.kind in "iu" and want.dtype.kind in "iu" and got.dtype.itemsize == want.dtype.itemsize:
            got = got.view(want.dtype)  # TOSA's integers are signless: unsigned results come back signed
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_empty_results_are_empty_constants(compiled):
    text = str(compiled("empty_split_parts")[0])
    assert text.count("arith.constant dense<> :") == 2, text  # the two empty f32 results are one value (CSE)
    assert "torch." not in text


@pytest.mark.parametrize("name", ["compress_run_time_condition", "non_zero_float_3d"])
def test_no_scatter_for_positions(compiled, name):
    text = str(compiled(name)[0])
    assert "tosa.scatter" not in text and "tosa.gather" in text


def test_dilated_max_pools_without_dilation(compiled):
    text = str(compiled("dilated_max_pools")[0])
    assert text.count("tosa.max_pool2d") == 2, text


def test_shape_of_a_sequence_element_is_a_constant(compiled):
    text = str(compiled("shapes_of_a_sequence")[0])
    # A tosa.const since the TOSA route turns tensor arith.constants into TOSA's own constants.
    assert "\"tosa.const\"" in text and "torch." not in text and "tosa.shape" not in text


def test_loop_scan_outputs_written_in_place(compiled):
    text = str(compiled("loop_with_run_time_trip_count")[0])
    assert "tosa.while_loop" in text and "tosa.concat" not in text


@pytest.mark.parametrize("name", list(MODELS))
def test_valid_tosa(compiled, name):
    """Every form validates against the TOSA target our output claims (tools/tosa_validation.py); the
    Loop's body reads the trip count and x from outside, carried in (transforms/tosa/isolated_loops.py)."""
    module = compiled(name)[0]
    copy = ir.Module.parse(str(module), module.context)
    assert tosa_validation.validation_error(copy) is None
