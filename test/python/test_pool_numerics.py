"""AveragePool and LpPool with ceil_mode on dynamic spatial sizes (EfficientNet's TensorFlow-style
pools, exported with a dynamic image size), compiled to Linalg, run on the reference runner at
several sizes, compared with onnxruntime.

Ceil mode's window count depends on the size; the conversion pads the end by stride - 1 so that
floor mode counts the same windows, which holds whenever ceil mode's last window cannot start in the
end padding (end pad + stride - 1 < kernel). Before, any dynamic size was refused."""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError

# (op, attributes, run-time spatial sizes)
CASES = {
    "average-k3s2": ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, [(9, 10), (8, 7)]),
    "average-k3s2-pads": (
        "AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1], "ceil_mode": 1}, [(6, 11), (5, 5)],
    ),
    "average-k2s2-include-pad": (
        "AveragePool", {"kernel_shape": [2, 3], "strides": [2, 2], "pads": [0, 1, 0, 1], "ceil_mode": 1,
                        "count_include_pad": 1}, [(7, 9), (4, 6)],
    ),
    "average-1d": ("AveragePool", {"kernel_shape": [4], "strides": [3], "ceil_mode": 1}, [(11,), (12,)]),
    "lp-k3s2": ("LpPool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1, "p": 2}, [(9, 8), (6, 6)]),
}


def _model(op: str, attributes: dict, rank: int) -> onnx.ModelProto:
    spatial = ["H", "W"][: rank] if rank == 2 else ["L"]
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], name="pool", **attributes)], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3, *spatial])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


@pytest.mark.parametrize("case", CASES)
def test_ceil_mode_on_dynamic_sizes(case):
    op, attributes, sizes = CASES[case]
    model = _model(op, attributes, len(sizes[0]))
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch, spatial in enumerate(sizes, start=1):
        x = rng.standard_normal((batch, 3, *spatial), dtype=np.float32)
        (expected,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x])
        assert got.shape == expected.shape, f"at {x.shape}"
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_ceil_mode_whose_count_depends_on_the_size_is_refused():
    """End pad 2 + stride 2 - 1 >= kernel 3: whether ceil mode's last window starts in the padding
    depends on the size, so a dynamic size is refused by name."""
    model = _model("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 0, 2, 2], "ceil_mode": 1}, 2)
    with pytest.raises(OnnxTorchMlirError, match=r"ceil_mode with end pad 2.*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


# (attributes, backends): torch-mlir's Linalg and TOSA lowerings compared unsigned bytes as signed,
# so a window holding 200 and 100 gave 100 (wrong numbers before the widening).
UNSIGNED_CASES = {
    "k2": ({"kernel_shape": [2, 2]}, ["linalg-on-tensors", "tosa", "stablehlo"]),
    "k3s2-ceil": ({"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, ["linalg-on-tensors", "tosa", "stablehlo"]),
    # TOSA: torch-mlir does not lower the padding of the widened input (a clear compile error).
    "k2-asymmetric-pads": ({"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]}, ["linalg-on-tensors", "stablehlo"]),
}


@pytest.mark.parametrize(
    "case,backend", [(case, backend) for case, (_, backends) in UNSIGNED_CASES.items() for backend in backends]
)
def test_unsigned_max_pool(case, backend):
    attributes, _ = UNSIGNED_CASES[case]
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool", **attributes)], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.UINT8, [1, 2, 7, 7])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.UINT8, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    x = np.random.default_rng(0).integers(0, 256, (1, 2, 7, 7), dtype=np.uint8)
    (expected,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend)
    np.testing.assert_array_equal(got.view(np.uint8), expected)


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "tosa", "stablehlo"])
@pytest.mark.parametrize("attributes", [
    {"kernel_shape": [320, 320], "strides": [320, 320], "ceil_mode": 1},  # transformers' EfficientNet pooler
    {"kernel_shape": [3, 3], "pads": [1, 0, 0, 1]},  # a window over the whole 2x2 input, its pads not counted
], ids=["kernel-beyond-the-input", "padded-window"])
def test_one_window_over_the_whole_input_is_the_spatial_mean(backend, attributes):
    """The pool is `aten.mean.dim` (which the TOSA integer walk reads as a sum), not a window sum
    padded to the kernel's size; the values are onnxruntime's."""
    graph = helper.make_graph(
        [helper.make_node("AveragePool", ["x"], ["y"], name="pool", **attributes)], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 5, 2, 2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    torch_module = str(onnx_torch_mlir.compile(model, "torch"))
    assert "torch.aten.sum.dim_IntList" in torch_module and "convolution" not in torch_module  # the mean, decomposed
    x = np.random.default_rng(3).standard_normal((2, 5, 2, 2), dtype=np.float32)
    (expected,) = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
