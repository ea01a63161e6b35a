"""Static shapes computed through floating-point arithmetic are constants before any backend sees them.

The TorchScript exporter traces Python arithmetic on sizes as ONNX nodes on constants, and some of
it is floating-point: transformers' Dinov2 sizes its position-embedding grid as
`int(num_positions ** 0.5)` (`Pow(16.0, 0.5)`, `Cast` to int64) before a Reshape and a bicubic
Resize; MobileViT pads to `int(ceil(h / p) * p)` (`Ceil`, `Mul` on floats, `Cast`, integer `Div`,
`Mul`) before a Reshape. When the conversion's fold left those float nodes as tensor ops, the Reshape
read its sizes with `aten.item` (TOSA and StableHLO lower none) and everything after it had dynamic
dims (a Resize of them became an interpolation StableHLO cannot lower). The fold now evaluates the
floating-point operations IEEE 754 defines exactly, and Pow, so each graph here compiles with no
`aten.item` or `aten.size.int` left, on every backend, and matches onnxruntime on the reference
runner and on IREE.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-5, 1e-5


def _constant(name: str, value, dtype) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value, dtype), name))


def _model(nodes, x_shape, name) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def pow_sized_cubic_resize() -> onnx.ModelProto:
    """Dinov2's interpolate_pos_encoding: 16 positions to a sqrt(16) x sqrt(16) grid, resized to 5x5."""
    nodes = [
        _constant("positions", 16.0, np.float32), _constant("half", 0.5, np.float32),
        helper.make_node("Pow", ["positions", "half"], ["root"]),
        helper.make_node("Cast", ["root"], ["side"], to=TensorProto.INT64),
        _constant("zero", [0], np.int64), _constant("one", [1], np.int64), _constant("two", [2], np.int64),
        _constant("channels", [8], np.int64), _constant("target", [5, 5], np.int64),
        helper.make_node("Unsqueeze", ["side", "zero"], ["side_1d"]),
        helper.make_node("Concat", ["one", "side_1d", "side_1d", "channels"], ["grid_shape"], axis=0),
        helper.make_node("Reshape", ["x", "grid_shape"], ["grid"]),
        helper.make_node("Transpose", ["grid"], ["nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Shape", ["nchw"], ["nchw_shape"]),
        helper.make_node("Slice", ["nchw_shape", "zero", "two", "zero"], ["batch_channels"]),
        helper.make_node("Concat", ["batch_channels", "target"], ["sizes"], axis=0),
        helper.make_node("Resize", ["nchw", "", "", "sizes"], ["y"], mode="cubic",
                         coordinate_transformation_mode="half_pixel", cubic_coeff_a=-0.75),
    ]
    return _model(nodes, [1, 16, 8], "pow_sized_cubic_resize")


def ceil_padded_patches() -> onnx.ModelProto:
    """MobileViT's unfolding: new_height = int(ceil(4.0 / 2.0) * 2.0), patches = new_height // 2 * 8."""
    nodes = [
        _constant("height", 4.0, np.float32), _constant("patch", 2.0, np.float32),
        _constant("patch_int", 2, np.int64), _constant("channels", 8, np.int64),
        helper.make_node("Div", ["height", "patch"], ["ratio"]),
        helper.make_node("Ceil", ["ratio"], ["count"]),
        helper.make_node("Mul", ["count", "patch"], ["padded"]),
        helper.make_node("Cast", ["padded"], ["padded_int"], to=TensorProto.INT64),
        helper.make_node("Div", ["padded_int", "patch_int"], ["rows"]),
        helper.make_node("Mul", ["rows", "channels"], ["patches"]),
        _constant("zero", [0], np.int64), _constant("tail", [2, 2, 2], np.int64),
        helper.make_node("Unsqueeze", ["patches", "zero"], ["patches_1d"]),
        helper.make_node("Concat", ["patches_1d", "tail"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["unfolded"]),
        helper.make_node("Transpose", ["unfolded"], ["y"], perm=[1, 0, 2, 3]),
    ]
    return _model(nodes, [1, 8, 4, 4], "ceil_padded_patches")


def rounded_sqrt_nearest_resize() -> onnx.ModelProto:
    """Sizes by Floor(Sqrt(36) * 1.5) = 9 and Round(2.5) = 2 (half to even), Max and Sub on floats."""
    nodes = [
        _constant("area", 36.0, np.float32), _constant("factor", 1.5, np.float32),
        _constant("tie", 2.5, np.float32), _constant("floor_at", 1.0, np.float32),
        _constant("offset", 0.0, np.float32), _constant("zero", [0], np.int64),
        _constant("batch_channels", [1, 2], np.int64),
        helper.make_node("Sqrt", ["area"], ["side"]),
        helper.make_node("Mul", ["side", "factor"], ["scaled"]),
        helper.make_node("Floor", ["scaled"], ["height"]),
        helper.make_node("Round", ["tie"], ["rounded"]),
        helper.make_node("Max", ["rounded", "floor_at"], ["bounded"]),
        helper.make_node("Sub", ["bounded", "offset"], ["width"]),
        helper.make_node("Concat", ["height", "width"], ["spatial"], axis=0),
        helper.make_node("Cast", ["spatial"], ["spatial_int"], to=TensorProto.INT64),
        helper.make_node("Concat", ["batch_channels", "spatial_int"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest"),
    ]
    for node in nodes:  # 0-d float constants are Concat'ed: give them one dim
        if node.op_type == "Constant" and node.attribute[0].t.data_type == TensorProto.FLOAT:
            node.attribute[0].t.dims[:] = [1]
    return _model(nodes, [1, 2, 6, 4], "rounded_sqrt_nearest_resize")


def same_padding_pads() -> onnx.ModelProto:
    """TF-style "same" padding: pad = (ceil(6 / 4) - 1) * 4 + 3 - 6 = 1, split 0 before and 1 after
    (`Floor(pad / 2)`), the pads sent to a Pad whose values, not only its result type, matter."""
    nodes = [
        _constant("extent", [6.0], np.float32), _constant("stride", [4.0], np.float32),
        _constant("kernel_minus_extent", [-3.0], np.float32), _constant("one", [1.0], np.float32),
        _constant("two", [2.0], np.float32), _constant("no_pads", [0, 0, 0, 0], np.int64),
        helper.make_node("Div", ["extent", "stride"], ["blocks"]),
        helper.make_node("Ceil", ["blocks"], ["count"]),
        helper.make_node("Sub", ["count", "one"], ["steps"]),
        helper.make_node("Mul", ["steps", "stride"], ["span"]),
        helper.make_node("Add", ["span", "kernel_minus_extent"], ["total"]),
        helper.make_node("Div", ["total", "two"], ["half"]),
        helper.make_node("Floor", ["half"], ["before"]),
        helper.make_node("Sub", ["total", "before"], ["after"]),
        helper.make_node("Concat", ["before", "before", "after", "after"], ["spatial_pads"], axis=0),
        helper.make_node("Cast", ["spatial_pads"], ["spatial_pads_int"], to=TensorProto.INT64),
        helper.make_node("Split", ["spatial_pads_int"], ["begins", "ends"]),
        helper.make_node("Concat", ["no_pads", "begins", "ends"], ["pads"], axis=0),
        helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect"),
    ]
    return _model(nodes, [1, 2, 6, 6], "same_padding_pads")


CASES = {
    "pow_sized_cubic_resize": (pow_sized_cubic_resize, (1, 8, 5, 5)),
    "ceil_padded_patches": (ceil_padded_patches, (2, 16, 2, 2)),
    "rounded_sqrt_nearest_resize": (rounded_sqrt_nearest_resize, (1, 2, 9, 2)),
    "same_padding_pads": (same_padding_pads, (1, 2, 7, 7)),
}


def _input(model: onnx.ModelProto) -> np.ndarray:
    dims = [dim.dim_value for dim in model.graph.input[0].type.tensor_type.shape.dim]
    return np.random.default_rng(7).standard_normal(dims).astype(np.float32)


def _expected(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def _check(outputs, model, x, shape):
    (got,) = outputs
    want = _expected(model, x)
    assert want.shape == shape
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", CASES)
def test_torch_output_has_no_run_time_sizes(name):
    """The shape chain is literals: no aten.item / aten.size.int, no integer tensor computed at
    run time (every si64 tensor is a literal), and every type is static."""
    build, shape = CASES[name]
    text = str(onnx_torch_mlir.compile(build(), "torch"))
    assert "torch.aten.item" not in text and "torch.aten.size.int" not in text
    computed = [line for line in text.splitlines() if re.search(r"-> !torch\.vtensor<\[[0-9,]*\],si64>$", line)]
    assert computed == []
    assert "?" not in text
    assert f"!torch.vtensor<[{','.join(map(str, shape))}],f32>" in text


def test_import_types_the_float_sized_reshape_statically():
    """The importer's types already know the grid: ONNX's inference evaluates no Pow and no float
    Cast, the fold of the constant chain does (else the Resize sees [1,8,?,?] and is converted as
    an interpolation of dynamic sizes, which StableHLO cannot lower)."""
    text = str(onnx_torch_mlir.import_onnx(pow_sized_cubic_resize(), form="torch-onnx"))
    (reshape,) = [line for line in text.splitlines() if '"onnx.Reshape"' in line]
    (resize,) = [line for line in text.splitlines() if '"onnx.Resize"' in line]
    assert reshape.rstrip().endswith("-> !torch.vtensor<[1,4,4,8],f32>")
    assert "(!torch.vtensor<[1,8,4,4],f32>," in resize


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", CASES)
def test_reference_runner_matches_onnxruntime(name, backend):
    build, shape = CASES[name]
    model = build()
    x = _input(model)
    _check(runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend), model, x, shape)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", CASES)
def test_iree_matches_onnxruntime(name, backend):
    build, shape = CASES[name]
    model = build()
    x = _input(model)
    _check(compile_with_iree(onnx_torch_mlir.compile(model, backend), backend)(x), model, x, shape)
