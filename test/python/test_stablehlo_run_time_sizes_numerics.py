"""Sizes read from tensors at run time on StableHLO, run on the reference CPU runner and on IREE
and compared with onnxruntime (Linalg on the reference runner too, as the peer that always took
them):
- a Pad whose `pads` is a graph input, positive and negative (constant_pad_nd of run-time amounts,
  transforms/stablehlo/run_time_pads.py);
- NonZero of a count left open (TOSA's prefix-count form on as many rows as elements, cut to the
  run-time count);
- SplitToSequence of a run-time `split` (slices of run-time bounds);
- a Range of run-time float bounds (aten.item of a float read as aten.Float.Tensor,
  transforms/stablehlo/torch_forms.py), as in the expanded window functions, and of a size read
  from a Shape and cast to float (YOLOv8's anchor grid on a dynamic image size: torch-mlir folds
  the read into aten.Float.Scalar of the size; transforms/stablehlo/run_time_ranges.py).
One compiled module runs on inputs that give different result sizes.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import compiled_beside_onnxruntime, program

PROGRAMS = [("stablehlo", "reference"), ("stablehlo", "iree"), ("linalg-on-tensors", "reference")]


def _pad_model() -> onnx.ModelProto:
    """Pad (opset 18) of a [4, 5] float input by a run-time `pads`, fill value 7."""
    node = helper.make_node("Pad", ["x", "pads", "value"], ["y"], mode="constant")
    graph = helper.make_graph(
        [node], "pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5]),
         helper.make_tensor_value_info("pads", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])],
        [helper.make_tensor("value", TensorProto.FLOAT, [], [7.0])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def _window_model() -> onnx.ModelProto:
    """The periodic Hann window of an int32 size input, written out as HannWindow's function body
    writes it: Cast, Range(0, size, 1), Cos."""
    n = helper.make_node
    nodes = [
        n("Cast", ["size"], ["size_fp"], to=TensorProto.FLOAT),
        n("Range", ["zero", "size_fp", "one"], ["steps"]),
        n("Div", ["tau", "size_fp"], ["increment"]),
        n("Mul", ["steps", "increment"], ["angles"]),
        n("Cos", ["angles"], ["cosines"]),
        n("Mul", ["half", "cosines"], ["scaled"]),
        n("Sub", ["half", "scaled"], ["window"]),
    ]
    constants = [helper.make_tensor(name, TensorProto.FLOAT, [], [value])
                 for name, value in (("zero", 0.0), ("one", 1.0), ("half", 0.5), ("tau", 2 * np.pi))]
    graph = helper.make_graph(nodes, "window", [helper.make_tensor_value_info("size", TensorProto.INT32, [])],
                              [helper.make_tensor_value_info("window", TensorProto.FLOAT, [None])], constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def _grid_model() -> onnx.ModelProto:
    """YOLOv8's anchor centres along a dynamic width: Range(0.0, Cast(Shape(x)[3]), 1.0) + 0.5."""
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["dims"]),
        n("Gather", ["dims", "three"], ["width"], axis=0),
        n("Cast", ["width"], ["width_fp"], to=TensorProto.FLOAT),
        n("Range", ["zero", "width_fp", "one"], ["steps"]),
        n("Add", ["steps", "half"], ["centres"]),
    ]
    constants = [helper.make_tensor(name, TensorProto.FLOAT, [], [value])
                 for name, value in (("zero", 0.0), ("one", 1.0), ("half", 0.5))]
    constants.append(helper.make_tensor("three", TensorProto.INT64, [], [3]))
    graph = helper.make_graph(
        nodes, "grid", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("centres", TensorProto.FLOAT, [None])], constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def _non_zero_model() -> onnx.ModelProto:
    """NonZero (opset 13) of a [3, 4] float input, its count left open."""
    node = helper.make_node("NonZero", ["x"], ["y"])
    graph = helper.make_graph([node], "non_zero", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2, None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)


def _split_model() -> onnx.ModelProto:
    """SplitToSequence of a [6, 2] input by a run-time `split` of 3 sizes; element 1 read back."""
    nodes = [helper.make_node("SplitToSequence", ["x", "split"], ["sequence"], axis=0),
             helper.make_node("SequenceAt", ["sequence", "one"], ["y"])]
    graph = helper.make_graph(
        nodes, "split",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 2]),
         helper.make_tensor_value_info("split", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 2])],
        [helper.make_tensor("one", TensorProto.INT64, [], [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=10)


X = np.arange(20, dtype=np.float32).reshape(4, 5)
CASES = {
    "pad": (_pad_model, [{"x": X, "pads": np.array(pads, np.int64)}
                         for pads in ([1, 2, 3, 0], [0, 0, 0, 0], [2, 0, 0, 1])]),
    "pad-negative": (_pad_model, [{"x": X, "pads": np.array(pads, np.int64)}
                                  for pads in ([1, 2, 3, 0], [-1, 2, 0, -3], [-2, -5, -2, 1])]),
    "non-zero": (_non_zero_model, [{"x": (np.arange(12).reshape(3, 4) % modulo == 0).astype(np.float32)}
                                   for modulo in (1, 5, 13)] + [{"x": np.zeros((3, 4), np.float32)}]),
    "split": (_split_model, [{"x": np.arange(12, dtype=np.float32).reshape(6, 2), "split": np.array(split, np.int64)}
                             for split in ([1, 2, 3], [3, 0, 3], [0, 6, 0])]),
    "window": (_window_model, [{"size": np.array(size, np.int32)} for size in (10, 3, 1)]),
    "grid": (_grid_model, [{"x": np.zeros((1, 3, 4, width), np.float32)} for width in (5, 8, 1)]),
}


# Negative run-time pads also run on Linalg: the conversion crops by them before
# aten.constant_pad_nd (whose Linalg lowering gave wrong numbers or aborted on them).
PARAMS = [(name, backend, consumer) for name in CASES for backend, consumer in PROGRAMS]


@pytest.mark.parametrize("name, backend, consumer", PARAMS)
def test_run_time_sizes_match_onnxruntime(name, backend, consumer):
    build, feeds_list = CASES[name]
    compiled, session = compiled_beside_onnxruntime(build(), backend, consumer)
    shapes = set()
    for feeds in feeds_list:
        (want,) = session.run(None, feeds)
        (got,) = compiled(*feeds.values())
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        shapes.add(want.shape)
    assert len(shapes) == len(feeds_list)  # the sizes really change with the data


def _upsample_model() -> onnx.ModelProto:
    """Upsample (opset 9, nearest) of a [1, 2, 3, 4] input by a `scales` input, to a declared [1, 2, 6, 6]."""
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode="nearest")
    graph = helper.make_graph(
        [node], "upsample",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4]),
         helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=10)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_nearest_upsample_by_run_time_scales_matches_onnxruntime(consumer):
    """The scales differ between runs (the same output size, other source positions)."""
    model = _upsample_model()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "torch." not in str(module)
    compiled = program(module, "stablehlo", consumer)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    results = []
    for scales in ([1, 1, 2, 1.5], [1, 1, 2.2, 1.7]):
        feeds = {"x": x, "scales": np.array(scales, np.float32)}
        (want,) = session.run(None, feeds)
        (got,) = compiled(*feeds.values())
        np.testing.assert_array_equal(got, want)
        results.append(want)
    assert not np.array_equal(*results)


def _shapes_of_a_sequence_model() -> onnx.ModelProto:
    """A SequenceMap whose body takes a Shape: converted once for the sequence's elements, the body
    builds the shape from its dims (`aten.tensor`), constants once inlined
    (transforms/torch/constant_int_tensors.py makes them a literal)."""
    body = helper.make_graph(
        [helper.make_node("Shape", ["element"], ["shape"])], "body",
        [helper.make_tensor_value_info("element", TensorProto.FLOAT, ["rows", "columns"])],
        [helper.make_tensor_value_info("shape", TensorProto.INT64, [2])])
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "c"], ["sequence"]),
        helper.make_node("SequenceMap", ["sequence"], ["shapes"], body=body),
        helper.make_node("ConcatFromSequence", ["shapes"], ["y"], axis=0, new_axis=1),
    ]
    graph = helper.make_graph(nodes, "shapes", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                                                helper.make_tensor_value_info("c", TensorProto.FLOAT, [4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_shapes_of_sequence_elements_match_onnxruntime(consumer):
    model = _shapes_of_a_sequence_model()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "torch." not in str(module)
    feeds = {"a": np.ones((2, 3), np.float32), "c": np.ones((4, 5), np.float32)}
    (want,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None,
                                                                                                            feeds)
    (got,) = program(module, "stablehlo", consumer)(*feeds.values())
    np.testing.assert_array_equal(got, want)


def _insert_model() -> onnx.ModelProto:
    """SequenceInsert of a [4] tensor into a sequence of a [2] and a [3] tensor at a run-time
    position (elements of different sizes: each result element is a stablehlo.if), concatenated."""
    nodes = [helper.make_node("SequenceConstruct", ["a", "c"], ["sequence"]),
             helper.make_node("SequenceInsert", ["sequence", "t", "position"], ["inserted"]),
             helper.make_node("ConcatFromSequence", ["inserted"], ["y"], axis=0)]
    graph = helper.make_graph(
        nodes, "insert",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("position", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=10)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_insert_at_run_time_position_matches_onnxruntime(consumer):
    model = _insert_model()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "stablehlo.if" in str(module) and "torch." not in str(module)
    compiled = program(module, "stablehlo", consumer)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    arrays = {"a": np.array([1, 2], np.float32), "c": np.array([3, 4, 5], np.float32),
              "t": np.array([6, 7, 8, 9], np.float32)}
    results = []
    for position in (0, 1, 2, -1):
        feeds = {**arrays, "position": np.array(position, np.int64)}
        (want,) = session.run(None, feeds)
        (got,) = compiled(*feeds.values())
        np.testing.assert_array_equal(got, want)
        results.append(tuple(want))
    assert len(set(results)) == 3  # -1 inserts where 1 does


def _int32_shape_model() -> onnx.ModelProto:
    """tf2onnx's Tensordot (magika): the input's Shape cast to int32, some dims gathered by an int32
    initializer and concatenated, cast back to int64 and reshaped by. The dims become `aten.tensor`
    of a list with a run-time size, no dtype and an si32 result."""
    free = numpy_helper.from_array(np.array([0, 1], np.int32), "free")
    last = numpy_helper.from_array(np.array([1], np.int32), "last")
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["shape"]),
             helper.make_node("Cast", ["shape"], ["narrow"], to=TensorProto.INT32),
             helper.make_node("Gather", ["narrow", "free"], ["kept"], axis=0),
             helper.make_node("Concat", ["kept", "last"], ["dims"], axis=0),
             helper.make_node("Cast", ["dims"], ["wide"], to=TensorProto.INT64),
             helper.make_node("Reshape", ["r", "wide"], ["y"])]
    graph = helper.make_graph(nodes, "int32_shape", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=[free, last])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_int32_shape_of_a_run_time_size_matches_onnxruntime(consumer):
    model = _int32_shape_model()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    x = np.ones((5, 3), np.float32)
    (want,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    (got,) = program(module, "stablehlo", consumer)(x)
    np.testing.assert_array_equal(got, want)
