"""Resize, Upsample-9 and Resize-10 of static spatial extents on an input with a dynamic batch (or
channel count), as SegFormer's, FPN's and UNet's decode heads are exported with a dynamic batch:
sizes Concat(Shape(x)[:2], [H, W]), or constant scales. On TOSA and StableHLO, whose torch-mlir
lowerings have no interpolation of dynamic shape, the conversion resizes by taps (index_select,
mul, add along each resized axis) and keeps the batch dynamic; Linalg keeps
`aten.__interpolate`. Compiled once with the batch dynamic, run at batch 3 on the reference
runner and on IREE, compared with onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import errors, runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-4, 1e-5
BATCH = 3


def _int64(name: str, values) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64)))


def _graph(nodes, x_shape, initializers=(), opset=19) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)
    return onnx.shape_inference.infer_shapes(model)


def _by_shape_sizes(hw, x_shape=("batch", 4, 8, 8), kept=2, **attributes) -> onnx.ModelProto:
    """Resize to sizes Concat(Shape(x)[:kept], hw): the exported form of F.interpolate(size=hw)."""
    nodes = [
        helper.make_node("Shape", ["x"], ["kept"], end=kept), _int64("hw", hw),
        helper.make_node("Concat", ["kept", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attributes),
    ]
    return _graph(nodes, list(x_shape))


def _by_scales(scales, x_shape=("batch", 4, 8, 8), op="Resize", opset=19, **attributes) -> onnx.ModelProto:
    scales_tensor = numpy_helper.from_array(np.array(scales, np.float32), "scales")
    inputs = ["x", "", "scales"] if op == "Resize" and opset >= 11 else ["x", "scales"]
    return _graph([helper.make_node(op, inputs, ["y"], **attributes)], list(x_shape), [scales_tensor], opset)


CASES = {
    "linear_half_pixel_up": lambda: _by_shape_sizes([16, 12], mode="linear", coordinate_transformation_mode="half_pixel"),
    "linear_half_pixel_down": lambda: _by_shape_sizes([5, 3], mode="linear", coordinate_transformation_mode="half_pixel"),
    "linear_pytorch_half_pixel": lambda: _by_shape_sizes([1, 13], mode="linear",
                                                         coordinate_transformation_mode="pytorch_half_pixel"),
    "linear_align_corners": lambda: _by_shape_sizes([13, 6], mode="linear", coordinate_transformation_mode="align_corners"),
    "linear_asymmetric": lambda: _by_shape_sizes([12, 20], mode="linear", coordinate_transformation_mode="asymmetric"),
    "linear_half_pixel_symmetric": lambda: _by_shape_sizes([11, 5], mode="linear",
                                                           coordinate_transformation_mode="half_pixel_symmetric"),
    "nearest_round_prefer_floor": lambda: _by_shape_sizes([12, 5], mode="nearest", nearest_mode="round_prefer_floor",
                                                          coordinate_transformation_mode="half_pixel"),
    "nearest_floor": lambda: _by_shape_sizes([16, 11], mode="nearest", nearest_mode="floor",
                                             coordinate_transformation_mode="asymmetric"),
    "cubic": lambda: _by_shape_sizes([14, 6], mode="cubic"),
    "cubic_a_exclude_outside": lambda: _by_shape_sizes([10, 12], mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1),
    "linear_antialias_down": lambda: _by_shape_sizes([5, 3], mode="linear", antialias=1),
    # dynamic batch and channels: Shape(x)[:2] is both dims
    "linear_dynamic_channels": lambda: _by_shape_sizes([16, 16], x_shape=("batch", "channels", 8, 8), mode="linear"),
    # a dynamic batch, resized on the last axis only: Shape(x)[:3] keeps the static third
    "linear_last_axis": lambda: _by_shape_sizes([13], x_shape=("batch", 4, 6, 8), kept=3, mode="linear"),
    "linear_scales": lambda: _by_scales([1, 1, 2, 1.5], mode="linear"),
    "upsample9_nearest": lambda: _by_scales([1, 1, 2, 3], op="Upsample", opset=9, mode="nearest"),
    "upsample9_linear": lambda: _by_scales([1, 1, 2, 2], op="Upsample", opset=9, mode="linear"),
    "resize10_linear": lambda: _by_scales([1, 1, 1.5, 2.5], opset=10, mode="linear"),
    "resize10_nearest": lambda: _by_scales([1, 1, 2, 0.5], opset=10, mode="nearest"),
}
# IREE on the main forms (each compile takes a second or two).
IREE_CASES = ("linear_half_pixel_up", "linear_align_corners", "nearest_round_prefer_floor", "cubic", "upsample9_linear",
              "linear_dynamic_channels")


def _input(model: onnx.ModelProto, batch: int = BATCH) -> np.ndarray:
    dims = model.graph.input[0].type.tensor_type.shape.dim
    shape = [batch if i == 0 else (dim.dim_value or 4) for i, dim in enumerate(dims)]
    return np.random.default_rng(len(CASES)).standard_normal(shape).astype(np.float32)


def _expected(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def _compiled(model: onnx.ModelProto, backend: str):
    """The module, checked to keep the batch dynamic (and, on TOSA/StableHLO, to hold no interpolation)."""
    module = onnx_torch_mlir.compile(model, backend)
    text = str(module)
    signature = next(line for line in text.splitlines() if "func.func" in line)
    assert "tensor<?x" in signature, signature
    if backend != "linalg-on-tensors":
        assert "interpolate" not in text and "upsample" not in text
    return module


def _assert_matches(got: np.ndarray, want: np.ndarray):
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", CASES)
def test_reference_runner_matches_onnxruntime(name, backend):
    model = CASES[name]()
    module = _compiled(model, backend)
    x = _input(model)
    (got,) = runtime.run(module, [x], input_dialect=backend)
    _assert_matches(got, _expected(model, x))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", IREE_CASES)
def test_iree_matches_onnxruntime(name, backend):
    model = CASES[name]()
    program = compile_with_iree(_compiled(model, backend), backend)
    for batch in (BATCH, 1):  # one compile, two batch sizes
        x = _input(model, batch)
        (got,) = program(x)
        _assert_matches(got, _expected(model, x))


def test_run_time_sizes_refused_on_stablehlo_by_name():
    """Sizes read from a graph input (the output's spatial sizes unknown until run time), in a static
    signature: refused at the Resize, not at torch-mlir's `loc(unknown)` constant."""
    graph = helper.make_graph(
        [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8]),
         helper.make_tensor_value_info("sizes", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    with pytest.raises(errors.OnnxTorchMlirError, match=r'Resize.*spatial sizes known only at run time'):
        onnx_torch_mlir.compile(model, "stablehlo")
