"""StableHLO windows on dynamic image sizes that the one-slice-per-position rewrite did not take:
windows of more than 64 positions as large as their stride, as blocks of a reshape
(transforms/stablehlo/dynamic_blocks.py: EfficientNet's 320x320 ceil-mode pooler), and transposed
convolutions, whose input dilation is the pad's interior padding
(transforms/stablehlo/dynamic_convolution.py: UNet's 2x2 stride-2 up-convolution). Each model is
compiled once with dynamic N, H and W, run at three sizes on the reference runner and on IREE,
against onnxruntime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu
from onnxruntime_reference import assert_matches, expected

# (op, input channels, attributes, weight shape or None, run-time (batch, height, width) sizes)
CASES = {
    # EfficientNet's pooler: torch-mlir sums the padded input and a padded tensor of ones with a
    # 320x320 ones kernel (the window covers the whole image here: one output position).
    "efficientnet-pooler": ("AveragePool", 4, {"kernel_shape": [320, 320], "strides": [320, 320], "ceil_mode": 1,
                                                "count_include_pad": 1}, None, [(2, 2, 3), (1, 5, 4), (1, 1, 1)]),
    "average-9x9-ceil": ("AveragePool", 3, {"kernel_shape": [9, 9], "strides": [9, 9], "ceil_mode": 1,
                                            "count_include_pad": 1}, None, [(2, 20, 31), (1, 9, 18), (1, 11, 9)]),
    "average-9x9-pads": ("AveragePool", 3, {"kernel_shape": [9, 9], "strides": [9, 9], "pads": [2, 1, 3, 0]},
                         None, [(2, 20, 31), (1, 9, 18), (1, 11, 9)]),
    "max-9x9-pads": ("MaxPool", 3, {"kernel_shape": [9, 9], "strides": [9, 9], "pads": [1, 1, 1, 1]},
                     None, [(2, 20, 31), (1, 9, 18), (1, 11, 9)]),
    "conv-9x9-stride9": ("Conv", 3, {"kernel_shape": [9, 9], "strides": [9, 9], "pads": [1, 0, 0, 2]},
                         (5, 3, 9, 9), [(2, 20, 31), (1, 9, 18), (1, 11, 9)]),
    "conv-9x9-depthwise": ("Conv", 4, {"kernel_shape": [9, 9], "strides": [9, 9], "group": 4},
                           (4, 1, 9, 9), [(2, 20, 31), (1, 9, 18), (1, 11, 9)]),
    # UNet's up-convolution: one product per input position, then depth-to-space.
    "transpose-2x2-stride2": ("ConvTranspose", 6, {"kernel_shape": [2, 2], "strides": [2, 2]},
                              (6, 3, 2, 2), [(2, 5, 7), (1, 4, 3), (1, 1, 1)]),
    "transpose-1d-3-stride3": ("ConvTranspose", 2, {"kernel_shape": [3], "strides": [3]},
                               (2, 4, 3), [(2, 1, 7), (1, 1, 1)]),
    "transpose-2x2-stride2-pads": ("ConvTranspose", 6, {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 0, 0, 1]},
                                   (6, 3, 2, 2), [(2, 5, 7), (1, 4, 3), (1, 2, 2)]),
    # pads beyond the kernel: a negative padding of the dilated input, a crop.
    "transpose-pads-beyond-kernel": ("ConvTranspose", 4, {"kernel_shape": [3, 2], "strides": [2, 3],
                                                          "pads": [3, 0, 4, 2]}, (4, 3, 3, 2), [(2, 5, 7), (1, 6, 4)]),
    "transpose-3x3-stride2-pads-output-padding": (
        "ConvTranspose", 4, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]},
        (4, 5, 3, 3), [(2, 5, 7), (1, 4, 3), (1, 2, 2)]),
    "transpose-asymmetric-pads": (
        "ConvTranspose", 4, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 2, 0], "output_padding": [1, 0]},
        (4, 5, 3, 3), [(2, 5, 7), (1, 4, 3), (1, 2, 2)]),
    "transpose-groups-dilations": ("ConvTranspose", 4, {"kernel_shape": [2, 3], "strides": [3, 1], "group": 2,
                                                        "dilations": [2, 1], "pads": [0, 1, 1, 0]},
                                   (4, 3, 2, 3), [(2, 5, 7), (1, 4, 3), (1, 1, 2)]),
    "transpose-1d": ("ConvTranspose", 3, {"kernel_shape": [4], "strides": [2], "pads": [1, 1]},
                     (3, 2, 4), [(2, 1, 7), (1, 1, 3)]),
}


def _model(op, channels, attributes, weight_shape, rank):
    rng = np.random.default_rng(0)
    inputs, initializers = ["x"], []
    if weight_shape is not None:
        weight = rng.standard_normal(weight_shape).astype(np.float32)
        out_channels = weight_shape[0] if op == "Conv" else weight_shape[1] * attributes.get("group", 1)
        bias = rng.standard_normal(out_channels).astype(np.float32)
        initializers = [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")]
        inputs += ["w", "b"]
    spatial = ["H", "W"][:rank]
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], **attributes)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", channels, *spatial])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("case", CASES)
def test_dynamic_image_size_on_both_consumers(case):
    op, channels, attributes, weight_shape, sizes = CASES[case]
    rank = len(attributes["kernel_shape"])
    model = _model(op, channels, attributes, weight_shape, rank)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    text = str(module)
    assert "stablehlo.convolution" not in text and "stablehlo.reduce_window" not in text
    consumers = [compile_for_cpu(module, input_dialect="stablehlo")]
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    consumers.append(iree.compile_with_iree(module, "stablehlo"))
    rng = np.random.default_rng(1)
    for batch, height, width in sizes:
        x = rng.standard_normal((batch, channels, height, width)[: 2 + rank]).astype(np.float32)
        wanted = expected(model, [x])
        for run in consumers:
            assert_matches(run(x), wanted, rtol=1e-4, atol=1e-5)


def test_up_convolution_is_one_product_without_zeros():
    """A ConvTranspose whose kernel is as large as its stride reads no inserted zeros: one
    `dot_general` per input position, no pad (stablehlo_dynamic_blocks.depth_to_space_convolution)."""
    op, channels, attributes, weight_shape, _ = CASES["transpose-2x2-stride2"]
    text = str(onnx_torch_mlir.compile(_model(op, channels, attributes, weight_shape, 2), output_type="stablehlo"))
    assert "stablehlo.pad" not in text and text.count("stablehlo.dot_general") == 1


def test_large_windows_are_blocks_not_slices():
    """EfficientNet's pooler is one `stablehlo.reduce` per sum (numerator and divisor), not 320*320
    slices."""
    op, channels, attributes, _, _ = CASES["efficientnet-pooler"]
    text = str(onnx_torch_mlir.compile(_model(op, channels, attributes, None, 2), output_type="stablehlo"))
    assert text.count("stablehlo.reduce") == 2 and text.count("tensor.extract_slice") <= 2
