"""Convolutions as image patches times the filter matrix (transforms/linalg/convolution_matrices.py
and transforms/stablehlo/convolution_matrices.py, the default `conv_form` on Linalg and StableHLO)
compute what onnxruntime does, on the reference runner and on IREE (and XLA for StableHLO): strides,
dilations, asymmetric pads, rectangular kernels, a batch, several channels, half precision, and a
convolution whose input leaves a remainder past its last window; on Linalg also narrow convolutions
whose windows do not overlap (a network's patch stem); 1x1 convolutions are left as they are."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

# name: (input shape, filter shape, Conv attributes)
# (at least MIN_CHANNELS = 32 input and MIN_FEATURES = 32 output channels: narrower convolutions are left
# as they are)
CONVOLUTIONS = {
    "3x3-padded": ([2, 32, 9, 8], [32, 32, 3, 3], {"pads": [1, 1, 1, 1]}),
    "strided-dilated": ([1, 40, 13, 11], [33, 40, 3, 3], {"strides": [2, 3], "dilations": [2, 1], "pads": [2, 1, 0, 1]}),
    "rectangular-kernel": ([1, 32, 7, 10], [32, 32, 2, 5], {"strides": [1, 2]}),
    "remainder-past-last-window": ([1, 33, 10, 10], [32, 33, 3, 3], {"strides": [4, 4]}),
    "one-row-kernel": ([2, 48, 5, 6], [40, 48, 1, 3], {"strides": [2, 1]}),
}


def _convolution(input_shape, filter_shape, attributes, element=TensorProto.FLOAT) -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    dtype = helper.tensor_dtype_to_np_dtype(element)
    weight = numpy_helper.from_array(rng.standard_normal(filter_shape).astype(dtype), "w")
    bias = numpy_helper.from_array(rng.standard_normal(filter_shape[:1]).astype(dtype), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **attributes), helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "convolution", [helper.make_tensor_value_info("x", element, input_shape)],
                              [helper.make_tensor_value_info("y", element, None)], [weight, bias])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


# backend: (what the rewritten module holds, what it no longer holds)
FORMS = {"linalg-on-tensors": ("linalg.matmul", "linalg.conv_2d"),
         "stablehlo": ("stablehlo.dot_general", "stablehlo.convolution")}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", FORMS)
@pytest.mark.parametrize("name", CONVOLUTIONS)
def test_convolution_as_matrix_product_matches_onnxruntime(name, backend, consumer):
    input_shape, filter_shape, attributes = CONVOLUTIONS[name]
    model = _convolution(input_shape, filter_shape, attributes)
    x = np.random.default_rng(0).standard_normal(input_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, backend)
    text = str(module)
    present, absent = FORMS[backend]
    assert present in text and absent not in text  # the rewrite ran
    assert_matches(program(module, backend, consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


# name: (input shape, filter shape, Conv attributes): fewer than MIN_CHANNELS, windows apart
APART = {
    "patch-stem": ([2, 3, 16, 12], [8, 3, 4, 4], {"strides": [4, 4]}),  # ConvNeXt's stem
    "downsampling": ([1, 16, 8, 8], [32, 16, 2, 2], {"strides": [2, 2]}),  # ConvNeXt's between stages
    "gaps-between-windows": ([1, 4, 11, 9], [5, 4, 2, 3], {"strides": [3, 4], "pads": [0, 1, 1, 0]}),
}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", FORMS)
@pytest.mark.parametrize("name", APART)
def test_narrow_convolution_with_windows_apart_as_matrix_product(name, backend, consumer):
    input_shape, filter_shape, attributes = APART[name]
    model = _convolution(input_shape, filter_shape, attributes)
    x = np.random.default_rng(0).standard_normal(input_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, backend)
    text = str(module)
    product, convolution = FORMS[backend]
    assert product in text and convolution not in text  # the rewrite ran
    assert_matches(program(module, backend, consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_large_kernel_patches_gathered_by_one_generic(consumer):
    """A kernel of more than MAX_SLICED_POSITIONS positions (ViT's 16x16 stem) gathers its patches with
    one linalg.generic instead of a slice per position."""
    model = _convolution([1, 3, 18, 27], [4, 3, 9, 9], {"strides": [9, 9]})
    x = np.random.default_rng(0).standard_normal([1, 3, 18, 27]).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    text = str(module)
    assert "linalg.matmul" in text and "linalg.conv_2d" not in text and "tensor.insert_slice" not in text
    assert "tensor<1x2x3x9x9x3xf32>" in text  # the gathered [n, oh, ow, kh, kw, c] patches
    assert_matches(program(module, "linalg-on-tensors", consumer)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


# name: (input shape, filter shape, Conv attributes): kernels of more than 64 positions whose windows tile
TILING = {
    "tiling-stem": ([1, 3, 18, 27], [4, 3, 9, 9], {"strides": [9, 9]}),  # ViT's stem, smaller
    # rows: padded to 23, two windows use 18 (cut); columns: stride 12, two windows need 24 of 21 (zeros added)
    "tiling-with-pads-and-gaps": ([2, 3, 20, 21], [5, 3, 9, 9], {"strides": [9, 12], "pads": [1, 0, 2, 0]}),
}


@pytest.mark.parametrize("consumer", ["reference", "iree", "xla"])
@pytest.mark.parametrize("name", TILING)
def test_stablehlo_large_kernel_whose_windows_tile_as_regrouped_patches(name, consumer):
    """Beyond MAX_WINDOW_POSITIONS, the StableHLO step takes windows that tile the image as a reshape and a
    transpose of it (no slice per position), StableHLO ops only."""
    input_shape, filter_shape, attributes = TILING[name]
    model = _convolution(input_shape, filter_shape, attributes)
    x = np.random.default_rng(0).standard_normal(input_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    text = str(module)
    assert "stablehlo.dot_general" in text and "stablehlo.convolution" not in text and "tensor." not in text
    assert "stablehlo.transpose" in text and "stablehlo.concatenate" not in text
    if consumer == "xla":
        pytest.importorskip("jax", reason="XLA comes with the xla extra")
        from onnx_torch_mlir.runtime.xla import compile_with_xla

        compiled = compile_with_xla(module)
    else:
        compiled = program(module, "stablehlo", consumer)
    assert_matches(compiled(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_stablehlo_large_kernel_whose_windows_overlap_stays_a_convolution():
    model = _convolution([1, 32, 10, 10], [32, 32, 9, 9], {})
    x = np.random.default_rng(0).standard_normal([1, 32, 10, 10]).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "stablehlo.convolution" in str(module)
    assert_matches(program(module, "stablehlo", "reference")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["strided-dilated", "one-row-kernel", *APART])
def test_stablehlo_matrix_products_run_in_xla(name):
    pytest.importorskip("jax", reason="XLA comes with the xla extra")
    from onnx_torch_mlir.runtime.xla import compile_with_xla

    input_shape, filter_shape, attributes = {**CONVOLUTIONS, **APART}[name]
    model = _convolution(input_shape, filter_shape, attributes)
    x = np.random.default_rng(0).standard_normal(input_shape).astype(np.float32)
    module = onnx_torch_mlir.compile(model, "stablehlo", entry_name="main", weights="inline")
    assert "stablehlo.convolution" not in str(module) and "tensor." not in str(module)  # StableHLO ops only
    assert_matches(compile_with_xla(module)(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_half_precision_convolution_as_matrix_product():
    model = _convolution([1, 32, 8, 8], [32, 32, 3, 3], {"pads": [1, 1, 1, 1]}, TensorProto.FLOAT16)
    x = np.random.default_rng(1).standard_normal([1, 32, 8, 8]).astype(np.float16)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "linalg.matmul" in str(module)
    assert_matches(program(module, "linalg-on-tensors", "reference")(x), expected(model, [x]), rtol=1e-2, atol=1e-2)


def test_direct_form_keeps_the_convolution():
    input_shape, filter_shape, attributes = CONVOLUTIONS["3x3-padded"]
    text = str(onnx_torch_mlir.compile(_convolution(input_shape, filter_shape, attributes), "linalg-on-tensors",
                                       conv_form="direct"))
    assert "linalg.conv_2d_nhwc_hwcf" in text and "linalg.matmul" not in text


@pytest.mark.parametrize("backend", FORMS)
@pytest.mark.parametrize("shapes", [([1, 64, 7, 7], [4, 64, 1, 1]), ([1, 16, 7, 7], [32, 16, 3, 3]),
                                    ([1, 32, 7, 7], [16, 32, 3, 3])],
                         ids=["pointwise", "narrow", "narrow-output"])
def test_pointwise_and_narrow_convolutions_are_left_as_they_are(backend, shapes):
    text = str(onnx_torch_mlir.compile(_convolution(*shapes, {"strides": [2, 2]}), backend))
    present, absent = FORMS[backend]
    assert absent in text and present not in text


def test_dynamic_convolution_is_left_as_it_is():
    model = _convolution([1, 32, 9, 8], [5, 32, 3, 3], {"pads": [1, 1, 1, 1]})
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "height"
    text = str(onnx_torch_mlir.compile(model, "linalg-on-tensors"))
    assert "linalg.conv_2d" in text and "linalg.matmul" not in text


def test_unknown_conv_form_is_refused():
    from onnx_torch_mlir.errors import PipelineError

    input_shape, filter_shape, attributes = CONVOLUTIONS["3x3-padded"]
    with pytest.raises(PipelineError, match="unknown conv-form 'im2col': expected one of matrix-products, direct"):
        onnx_torch_mlir.compile(_convolution(input_shape, filter_shape, attributes), "linalg-on-tensors",
                                conv_form="im2col")
