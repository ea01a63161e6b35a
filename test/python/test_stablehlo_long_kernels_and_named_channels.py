"""StableHLO convolutions on dynamic sizes that were refused ("stablehlo.convolution on
tensor<?x1x?xf32>", "... on tensor<?x?x?x?xf32>"): a kernel longer than the 64 positions the slice
form takes but a few strides long (a 1-D audio front end's 256-sample kernel at stride 128; a mel
front end's 512 taps at stride 160, given zero taps to 640), now blocks of the stride and one slice per block offset (stablehlo_dynamic_blocks.py,
strided_convolution_patches); an input whose channel count the export also named (a UNet, a VAE
decoder), now cast to the count the kernel implies (stablehlo_dynamic_convolution.py). Compiled
once with dynamic sizes, run at two sizes on the reference runner and IREE against onnxruntime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

# name: (input channels, output channels, kernel, Conv attributes, run-time input shapes)
CASES = {
    "audio-1d": (1, 16, (256,), {"strides": [128]}, [(2, 1, 1024), (1, 1, 700)]),
    "audio-1d-padded": (2, 8, (96,), {"strides": [32], "pads": [48, 48]}, [(2, 2, 400), (1, 2, 257)]),
    "2d-12x9-stride-4x3": (3, 5, (12, 9), {"strides": [4, 3], "pads": [2, 1, 3, 0]}, [(2, 3, 20, 17), (1, 3, 13, 11)]),
    # not a whole number of strides: zero taps to the next one (openWakeWord's mel front end)
    "mel-512-stride-160": (1, 12, (512,), {"strides": [160]}, [(2, 1, 1600), (1, 1, 1000)]),
    "2d-10x9-stride-4x2": (2, 4, (10, 9), {"strides": [4, 2], "pads": [1, 2, 1, 0]}, [(2, 2, 23, 19), (1, 2, 14, 12)]),
}


def _model(in_channels, out_channels, kernel, attributes, channels_named=False):
    groups = attributes.get("group", 1)
    weight = np.random.default_rng(0).standard_normal((out_channels, in_channels // groups, *kernel))
    weight = weight.astype(np.float32)
    spatial = ["L"] if len(kernel) == 1 else ["H", "W"]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], **attributes)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C" if channels_named else in_channels, *spatial])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("case", CASES)
def test_kernel_of_whole_strides_on_a_dynamic_size(case, consumer):
    in_channels, out_channels, kernel, attributes, shapes = CASES[case]
    model = _model(in_channels, out_channels, kernel, attributes)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" not in str(module)
    run = program(module, "stablehlo", consumer)
    rng = np.random.default_rng(1)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-4)


NAMED_CHANNELS = {
    "3x3-stride-2": (8, 4, (3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "depthwise": (8, 8, (3, 3), {"pads": [1, 1, 1, 1], "group": 8}),
}


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("case", NAMED_CHANNELS)
def test_channel_count_named_by_the_export(case, consumer):
    in_channels, out_channels, kernel, attributes = NAMED_CHANNELS[case]
    model = _model(in_channels, out_channels, kernel, attributes, channels_named=True)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" not in str(module)
    run = program(module, "stablehlo", consumer)
    rng = np.random.default_rng(2)
    for shape in [(2, in_channels, 9, 11), (1, in_channels, 6, 5)]:
        x = rng.standard_normal(shape).astype(np.float32)
        assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-4)


def test_transposed_convolution_on_a_dynamic_batch():
    """A ConvTranspose (stride 2, output padding) on a dynamic batch alone: the reference runner's
    channels-last move left a dynamic `bufferization.to_tensor` it could not lower; rewritten like a
    grouped one."""
    weight = np.random.default_rng(0).standard_normal((3, 4, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1],
                          output_padding=[1, 1])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    for consumer in ("reference", "iree"):
        run = program(module, "stablehlo", consumer)
        for batch in (2, 1):
            x = np.random.default_rng(batch).standard_normal((batch, 3, 4, 5)).astype(np.float32)
            assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-4)
