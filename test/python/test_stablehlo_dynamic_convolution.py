"""StableHLO convolutions on dynamic image sizes as strided slices and one contraction
(transforms/stablehlo_dynamic_convolution.py): neither consumer lowers a `stablehlo.convolution`
with a dynamic spatial size, so CNNs exported with a dynamic image size were refused. Compiled once
with dynamic N, H and W, run at two sizes on the reference runner and on IREE, against onnxruntime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu
from onnxruntime_reference import assert_matches, expected

# (input channels, output channels, kernel, groups, Conv attributes)
CASES = {
    "stride2-pad1": (3, 8, (3, 3), 1, {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "depthwise": (8, 8, (3, 3), 8, {"pads": [1, 1, 1, 1]}),
    "depthwise-multiplier-stride2": (4, 8, (5, 5), 4, {"strides": [2, 2], "pads": [2, 1, 2, 1]}),
    "groups-dilation-asymmetric": (4, 6, (3, 2), 2, {"strides": [2, 1], "pads": [0, 1, 2, 0], "dilations": [2, 1]}),
    "pointwise-stride2": (4, 6, (1, 1), 1, {"strides": [2, 2]}),
    "1d": (3, 5, (3,), 1, {"strides": [2], "pads": [1, 0]}),
}
SIZES = [(2, 9, 11), (1, 6, 5)]  # (batch, height, width) at run time


def _conv_model(in_channels, out_channels, kernel, groups, attributes):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((out_channels, in_channels // groups, *kernel)).astype(np.float32)
    bias = rng.standard_normal(out_channels).astype(np.float32)
    spatial = ["H", "W"][: len(kernel)]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=groups, **attributes)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", in_channels, *spatial])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("case", CASES)
def test_dynamic_image_size_convolution_on_both_consumers(case):
    in_channels, out_channels, kernel, groups, attributes = CASES[case]
    model = _conv_model(in_channels, out_channels, kernel, groups, attributes)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" not in str(module)
    consumers = [compile_for_cpu(module, input_dialect="stablehlo")]
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    consumers.append(iree.compile_with_iree(module, "stablehlo"))
    rng = np.random.default_rng(1)
    for batch, height, width in SIZES:
        x = rng.standard_normal((batch, in_channels, height, width)[: 2 + len(kernel)]).astype(np.float32)
        wanted = expected(model, [x])
        for run in consumers:
            assert_matches(run(x), wanted, rtol=1e-4, atol=1e-5)


def test_dynamic_batch_alone_keeps_the_convolution():
    """A dynamic batch with static image sizes is lowered as a convolution (the runner and IREE
    lower it); only dynamic spatial sizes are rewritten."""
    model = _conv_model(3, 4, (3, 3), 1, {"pads": [1, 1, 1, 1]})
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 7
    model.graph.input[0].type.tensor_type.shape.dim[3].dim_value = 5
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" in str(module)
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 5)).astype(np.float32)
    assert_matches(compile_for_cpu(module, input_dialect="stablehlo")(x), expected(model, [x]), rtol=1e-4, atol=1e-5)
