"""Transposed convolutions whose windows tile the output as one matrix product and a reordering
(transforms/torch/transposed_convolutions.py, on the Linalg and StableHLO routes): the forms a
decoder's upsampling takes (2x2 stride 2, gaps between the blocks, ONNX's asymmetric pads and an
output_padding past the grid, 1-D and 3-D, no bias, groups, half precision) against onnxruntime on
the reference runner, IREE and XLA; overlapping and dilated ones are left as convolutions."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import errors
from consumers import program
from onnxruntime_reference import assert_matches, expected

BACKENDS = ("linalg-on-tensors", "stablehlo")

# name: (input shape, weight shape [c, o, k...], ConvTranspose attributes, bias)
TILING = {
    "unet-upsampling": ([2, 16, 6, 5], [16, 8, 2, 2], {"strides": [2, 2]}, True),
    "gaps-between-blocks": ([1, 4, 3, 4], [4, 5, 2, 3], {"strides": [3, 4]}, True),
    "pads-and-output-padding": ([1, 3, 4, 5], [3, 2, 2, 2], {"strides": [2, 2], "pads": [1, 0, 0, 1],
                                                           "output_padding": [1, 1]}, True),
    "one-d-no-bias": ([2, 6, 7], [6, 3, 4], {"strides": [4]}, False),
    "three-d": ([1, 4, 2, 3, 2], [4, 2, 2, 2, 2], {"strides": [2, 2, 2]}, True),
    # the conversion convolves each group on its own, so each is a product
    "grouped": ([1, 4, 5, 5], [4, 2, 2, 2], {"strides": [2, 2], "group": 2}, True),
}


def _conv_transpose(x_shape, w_shape, attributes, bias, element=TensorProto.FLOAT):
    rng = np.random.default_rng(5)
    dtype = helper.tensor_dtype_to_np_dtype(element)
    initializers = [numpy_helper.from_array(rng.standard_normal(w_shape).astype(dtype), "w")]
    inputs = ["x", "w"]
    if bias:
        features = w_shape[1] * attributes.get("group", 1)
        initializers.append(numpy_helper.from_array(rng.standard_normal([features]).astype(dtype), "b"))
        inputs.append("b")
    graph = helper.make_graph([helper.make_node("ConvTranspose", inputs, ["y"], **attributes)], "upsampling",
                              [helper.make_tensor_value_info("x", element, x_shape)],
                              [helper.make_tensor_value_info("y", element, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _convolutions(module) -> int:
    text = str(module)
    return text.count("linalg.conv_") + text.count("stablehlo.convolution")


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", TILING)
def test_tiling_transposed_convolution_as_matrix_product(name, backend, consumer):
    x_shape, w_shape, attributes, bias = TILING[name]
    model = _conv_transpose(x_shape, w_shape, attributes, bias)
    x = np.random.default_rng(0).standard_normal(x_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, backend)
    assert _convolutions(module) == 0  # the rewrite ran
    assert_matches(program(module, backend, consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["unet-upsampling", "pads-and-output-padding", "one-d-no-bias"])
def test_tiling_transposed_convolution_runs_in_xla(name):
    pytest.importorskip("jax", reason="XLA comes with the xla extra")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    x_shape, w_shape, attributes, bias = TILING[name]
    model = _conv_transpose(x_shape, w_shape, attributes, bias)
    x = np.random.default_rng(0).standard_normal(x_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    assert _convolutions(module) == 0
    assert_matches(compile_with_xla(module)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_half_precision_tiling_transposed_convolution():
    model = _conv_transpose([1, 8, 4, 4], [8, 4, 2, 2], {"strides": [2, 2]}, True, TensorProto.FLOAT16)
    x = np.random.default_rng(1).standard_normal([1, 8, 4, 4]).astype(np.float16)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert _convolutions(module) == 0
    assert_matches(program(module, "linalg-on-tensors", "reference")(x), expected(model, [x]), rtol=1e-2, atol=1e-2)


# Overlapping windows, a dilation: convolutions still, and still right.
LEFT_ALONE = {
    "overlapping": ([1, 4, 5, 5], [4, 3, 3, 3], {"strides": [2, 2]}),
    "dilated": ([1, 4, 5, 5], [4, 3, 2, 2], {"strides": [3, 3], "dilations": [2, 2]}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", LEFT_ALONE)
def test_other_transposed_convolutions_are_left_as_they_are(name, backend):
    x_shape, w_shape, attributes = LEFT_ALONE[name]
    model = _conv_transpose(x_shape, w_shape, attributes, True)
    x = np.random.default_rng(0).standard_normal(x_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, backend)
    assert _convolutions(module) >= 1
    assert_matches(program(module, backend, "reference")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_direct_form_keeps_the_transposed_convolution(backend):
    model = _conv_transpose(*TILING["unet-upsampling"])
    assert _convolutions(onnx_torch_mlir.compile(model, backend, conv_form="direct")) == 1


def test_bias_of_the_wrong_size_is_refused_by_name():
    """A bias of one group's outputs for two groups: once computed silently (the second group's slice of
    it was empty), refused by onnxruntime."""
    model = _conv_transpose([1, 4, 5, 5], [4, 2, 2, 2], {"strides": [2, 2], "group": 2, "name": "up"}, False)
    model.graph.initializer.append(numpy_helper.from_array(np.ones([2], np.float32), "b"))
    model.graph.node[0].input.append("b")
    with pytest.raises(errors.OnnxTorchMlirError, match=r"node 'up'.*bias of shape \[2\] for 4 output channels"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
