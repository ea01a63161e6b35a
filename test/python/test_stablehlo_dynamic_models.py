"""Forms of the zoo's dynamically shaped models on StableHLO, each as a small model compiled to
StableHLO, run on the reference runner and on IREE at two sizes, compared with onnxruntime
(issue 11, StableHLO as good as Linalg).

- a Gather along a non-leading dim of an operand with dynamic dims (GPT-2's and Llama's attention
  mask): torch-mlir's `stablehlo.dynamic_gather` becomes `stablehlo.torch_index_select`;
- a MatMul whose contracting dim is 1 on a dynamic length (Llama's rotary positions): IREE fails
  on its own rewrite of that `dot_general`, so it becomes a product of broadcasts;
- ScatterND / ScatterElements (T5's position buckets): the reference runner lowers
  `stablehlo.scatter` as a loop nest (runtime/stablehlo_scatter.py); a row-window scatter written
  in StableHLO checks the general form;
- a Shape's dims read as a tensor (optimum's GPT-2/Llama masks), and a size computed by `Where` on
  them read back for a Reshape whose -1 is known only at run time (transforms/stablehlo/torch_forms.py,
  reshaping.py);
- a Resize of a dynamic image size by whole-number scales (U-Net's upsampling) as blends of
  shifted slices; by other scales refused with a reason that points to `--dim`.

Tolerance (fp32): rtol 1e-4, atol 1e-5.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.runtime.iree import compile_with_iree

from onnxruntime_reference import assert_matches, expected

RTOL, ATOL = 1e-4, 1e-5
CONSUMERS = ("reference", "iree")


def _model(name, nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(*value) for value in inputs],
        [helper.make_tensor_value_info(*value) for value in outputs],
        initializer=[numpy_helper.from_array(array, key) for key, array in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _run_stablehlo(model: onnx.ModelProto, consumer: str, inputs_at_sizes: list) -> None:
    module = onnx_torch_mlir.compile(model, "stablehlo")
    if consumer == "reference":
        program = runtime.compile_for_cpu(module, input_dialect="stablehlo")
    else:
        program = compile_with_iree(module, "stablehlo")
    for inputs in inputs_at_sizes:
        assert_matches(program(*inputs), expected(model, inputs), rtol=RTOL, atol=ATOL)


def _normal(*shape, seed=1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("axis, data, indices, result, sizes", [
    (1, ["b", "s"], ["n"], ["b", "n"], [((2, 5), [4, 0, -1]), ((3, 7), [1, 2, -7, 6, 0])]),
    (1, ["b", "s", 4], ["m", "n"], ["b", "m", "n", 4], [((2, 5, 4), [[4, 0, -1], [1, 1, 2]]), ((1, 2, 4), [[1]])]),
    (2, ["b", 3, "s"], ["n"], ["b", 3, "n"], [((2, 3, 5), [4, 0]), ((4, 3, 2), [1, 0, -2])]),
], ids=["columns", "rank3_by_matrix", "last_dim"])
def test_gather_on_dynamic_dims_stablehlo(consumer, axis, data, indices, result, sizes):
    model = _model("gather", [helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)],
                   [("x", TensorProto.FLOAT, data), ("i", TensorProto.INT64, indices)],
                   [("y", TensorProto.FLOAT, result)])
    _run_stablehlo(model, consumer, [[_normal(*shape, seed=k), np.array(picked, np.int64)]
                                     for k, (shape, picked) in enumerate(sizes)])


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_unit_contraction_on_a_dynamic_length_stablehlo(consumer):
    """inv_freq [1, 8, 1] @ positions [b, 1, s], as Llama's rotary embedding computes it."""
    inverse_frequencies = _normal(1, 8, 1, seed=3)
    model = _model("rotary", [
        helper.make_node("Cast", ["positions"], ["positions_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["positions_f", "one"], ["positions3"]),
        helper.make_node("MatMul", ["inverse_frequencies", "positions3"], ["angles"]),
        helper.make_node("Cos", ["angles"], ["y"]),
    ], [("positions", TensorProto.INT64, ["b", "s"])], [("y", TensorProto.FLOAT, ["b", 8, "s"])],
        initializers=[("inverse_frequencies", inverse_frequencies), ("one", np.array([1], np.int64))])
    _run_stablehlo(model, consumer, [[np.arange(5, dtype=np.int64).reshape(1, 5)],
                                     [np.arange(12, dtype=np.int64).reshape(2, 6)]])


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("x_shape, weight_shape, result_shape, sizes", [
    (["b", 16], (16, 1), ["b", 1], [(3, 16), (1, 16)]),
    (["b", "s", 16], (16,), ["b", "s"], [(2, 5, 16), (1, 3, 16)]),
    (["b", "s", 16], (16, 1), ["b", "s", 1], [(2, 5, 16)]),
], ids=["linear_to_one_feature", "matrix_vector", "batched_to_one_feature"])
def test_products_with_one_free_side_on_dynamic_shapes_stablehlo(consumer, x_shape, weight_shape, result_shape, sizes):
    """A Linear to one feature (a classifier's single logit) on a dynamic batch."""
    weight = _normal(*weight_shape, seed=4)
    model = _model("one_feature", [helper.make_node("MatMul", ["x", "w"], ["y"])],
                   [("x", TensorProto.FLOAT, x_shape)], [("y", TensorProto.FLOAT, result_shape)],
                   initializers=[("w", weight)])
    _run_stablehlo(model, consumer, [[_normal(*shape, seed=k)] for k, shape in enumerate(sizes)])


def test_iree_still_rejects_a_dynamic_product_with_a_unit_free_dim():
    """The IREE 3.13 behaviour `unit_free_dims_as_reduction` works around: its StableHLO
    preprocessing rewrites this dot into a dot and a `stablehlo.reshape` to a dynamic type, which
    does not verify. When this test fails, IREE takes the form: delete the workaround."""
    text = """
    func.func @main(%x: tensor<?x64xf32>, %w: tensor<64x1xf32>) -> tensor<?x1xf32> {
      %r = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x64xf32>, tensor<64x1xf32>) -> tensor<?x1xf32>
      return %r : tensor<?x1xf32>
    }"""
    with pytest.raises(OnnxTorchMlirError, match="stablehlo.reshape' op result #0 must be statically shaped"):
        compile_with_iree(text, "stablehlo")


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_scatternd_rows_of_a_dynamic_batch_stablehlo(consumer):
    """ScatterND of whole rows into a dynamic [n, 4] (T5's relative-position buckets): torch-mlir's
    stablehlo.scatter, which the reference runner lowers as a loop nest (runtime/stablehlo_scatter.py)."""
    model = _model("scatter_rows", [helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
                   [("x", TensorProto.FLOAT, ["n", 4]), ("i", TensorProto.INT64, ["k", 1]),
                    ("u", TensorProto.FLOAT, ["k", 4])], [("y", TensorProto.FLOAT, ["n", 4])])
    _run_stablehlo(model, consumer, [
        [_normal(5, 4), np.array([[3], [0]], np.int64), _normal(2, 4, seed=2)],
        [_normal(2, 4, seed=3), np.array([[-1]], np.int64), _normal(1, 4, seed=4)],
    ])


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_scatter_elements_adding_duplicates_stablehlo(consumer):
    """ScatterElements with reduction add along dim 1: repeated indices add up."""
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction="add")
    model = _model("scatter_add", [node], [("x", TensorProto.FLOAT, [2, 5]), ("i", TensorProto.INT64, [2, 3]),
                                            ("u", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 5])])
    indices = np.array([[1, 1, -1], [0, 4, 0]], np.int64)
    _run_stablehlo(model, consumer, [[_normal(2, 5), indices, _normal(2, 3, seed=2)]])


WINDOW_SCATTER = """
func.func @main(%operand: tensor<4x3xf32>, %indices: tensor<2x1xi64>, %updates: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.scatter"(%operand, %indices, %updates) <{indices_are_sorted = false,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
                                                     scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %sum = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
"""


def test_scatter_with_update_windows_on_the_reference_runner_stablehlo():
    """A scatter of row windows (a form torch-mlir does not emit): window offsets add to the start."""
    program = runtime.compile_for_cpu(WINDOW_SCATTER, input_dialect="stablehlo")
    operand, updates = _normal(4, 3), _normal(2, 3, seed=2)
    indices = np.array([[2], [2]], np.int64)
    wanted = operand.copy()
    np.add.at(wanted, indices[:, 0], updates)
    np.testing.assert_allclose(program(operand, indices, updates)[0], wanted, rtol=RTOL, atol=ATOL)


def _dims_as_tensor_model(picked: list[int]) -> onnx.ModelProto:
    """x [b, s] -> its dims `picked` (Shape, Gather) read as a tensor: x * dims, or dims * w."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "pick"], ["sizes"], axis=0),
        helper.make_node("Cast", ["sizes"], ["sizes_f"], to=TensorProto.FLOAT),
    ]
    if len(picked) == 1:
        nodes.append(helper.make_node("Mul", ["x", "sizes_f"], ["y"]))
        result = ["b", "s"]
    else:
        nodes.append(helper.make_node("Mul", ["sizes_f", "w"], ["y"]))
        result = [len(picked)]
    initializers = [("pick", np.array(picked, np.int64)), ("w", np.array([1.5, -2.0], np.float32))]
    return _model("dims_as_tensor", nodes, [("x", TensorProto.FLOAT, ["b", "s"])],
                  [("y", TensorProto.FLOAT, result)], initializers=initializers[: 1 if len(picked) == 1 else 2])


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("picked", [[1], [1, 0]], ids=["one_dim", "two_dims"])
def test_run_time_dims_read_as_a_tensor_stablehlo(consumer, picked):
    """optimum's GPT-2/Llama attention-mask arithmetic: a Shape's dims Gathered into a tensor are
    `aten.tensor` of run-time ints, which torch-mlir's StableHLO lowering refused
    (transforms/stablehlo/torch_forms.py)."""
    _run_stablehlo(_dims_as_tensor_model(picked), consumer,
                   [[_normal(2, 3)], [_normal(4, 5, seed=2)]])


def _where_on_a_dim_model(inferred_first: bool) -> onnx.ModelProto:
    """x [b, s] reshaped to [s', -1] (or [-1, s']), s' = Where(s == -1, 1, s) computed on x's Shape (optimum's
    KV-cache models compute sizes so): the size is `aten.item` of a 0-d tensor, and the target a
    tensor, so a -1 in it is known only at run time."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["length"], axis=0),
        helper.make_node("Equal", ["length", "minus_one"], ["unknown"]),
        helper.make_node("Where", ["unknown", "one", "length"], ["kept"]),
        helper.make_node("Unsqueeze", ["kept", "axes"], ["kept1"]),
        helper.make_node("Concat", ["rest", "kept1"] if inferred_first else ["kept1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    initializers = [("one", np.array(1, np.int64)), ("minus_one", np.array(-1, np.int64)),
                    ("axes", np.array([0], np.int64)), ("rest", np.array([-1], np.int64))]
    return _model("where_on_a_dim", nodes, [("x", TensorProto.FLOAT, ["b", "s"])],
                  [("y", TensorProto.FLOAT, ["b", "s"] if inferred_first else ["s", "b"])], initializers=initializers)


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("inferred_first", [False, True], ids=["inferred_last", "inferred_first"])
def test_reshape_to_a_size_computed_by_where_stablehlo(consumer, inferred_first):
    _run_stablehlo(_where_on_a_dim_model(inferred_first), consumer, [[_normal(2, 3)], [_normal(4, 5, seed=2)]])


def _resize_model(scales, **attributes) -> onnx.ModelProto:
    return _model("resize", [helper.make_node("Resize", ["x", "", "scales"], ["y"], **attributes)],
                  [("x", TensorProto.FLOAT, ["b", 2, "h", "w"])], [("y", TensorProto.FLOAT, None)],
                  initializers=[("scales", np.array(scales, np.float32))])


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("scales, attributes", [
    ([1, 1, 2, 2], {"mode": "linear"}),
    ([1, 1, 3, 2], {"mode": "linear", "coordinate_transformation_mode": "asymmetric"}),
    ([1, 1, 2, 3], {"mode": "nearest", "coordinate_transformation_mode": "half_pixel", "nearest_mode": "floor"}),
    ([1, 1, 4, 3],
     {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "round_prefer_ceil"}),
], ids=["linear_half_pixel", "linear_asymmetric", "nearest_half_pixel_floor", "nearest_asymmetric_round_prefer_ceil"])
def test_resize_by_whole_numbers_of_a_dynamic_image_size_stablehlo(consumer, scales, attributes):
    """U-Net's upsampling of a dynamic image: blends and picks of shifted slices
    (transforms/stablehlo/upsampling.py); an image of height 1 checks the repeated edge row."""
    rng = np.random.default_rng(4)
    _run_stablehlo(_resize_model(scales, **attributes), consumer,
                   [[rng.random((2, 2, 3, 4), dtype=np.float32)], [rng.random((1, 2, 1, 5), dtype=np.float32)]])


def test_resize_of_a_dynamic_image_size_on_stablehlo_points_to_dim():
    """torch-mlir's StableHLO lowering has no interpolation of dynamic spatial sizes; a scale that is
    not a whole number failed at the scale list's torch.constant.float, now at the Resize, saying why."""
    model = _resize_model([1, 1, 1.5, 2], mode="linear")
    with pytest.raises(OnnxTorchMlirError, match=r"Resize.*dynamic spatial sizes.*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(model, "stablehlo")
    onnx_torch_mlir.compile(model, "stablehlo", dims={"h": 4, "w": 6})  # fixed sizes compile


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_slice_empty_at_run_time_stablehlo(consumer):
    """x[:, :-1] of a dynamic dim that is 1 at run time is empty: torch-mlir's StableHLO slice took
    its end of 0 for the whole dim (transforms/stablehlo/dynamic_ops.py)."""
    model = _model("slices", [
        helper.make_node("Slice", ["x", "zero", "one", "axis"], ["first"]),
        helper.make_node("Slice", ["x", "zero", "minus_one", "axis"], ["rest"]),
        helper.make_node("Concat", ["first", "rest"], ["y"], axis=1),
    ], [("x", TensorProto.FLOAT, [2, "h", "w"])], [("y", TensorProto.FLOAT, [2, "h", "w"])],
        initializers=[(name, np.array([value], np.int64))
                      for name, value in (("zero", 0), ("one", 1), ("minus_one", -1), ("axis", 1))])
    _run_stablehlo(model, consumer, [[_normal(2, 3, 4)], [_normal(2, 1, 5, seed=2)]])
