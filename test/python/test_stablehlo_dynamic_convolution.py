"""StableHLO convolutions and pools on dynamic image sizes as strided slices and one contraction or
an elementwise max/sum (transforms/stablehlo/dynamic_convolution.py): neither consumer lowers a
`stablehlo.convolution` with a dynamic spatial size or a `stablehlo.reduce_window` with any dynamic
size, so CNNs exported with a dynamic image size were refused. Compiled once with dynamic N, H and W,
run at two sizes on the reference runner and on IREE, against onnxruntime."""

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
    "one-output-channel": (3, 1, (3, 3), 1, {"pads": [1, 1, 1, 1]}),  # IREE: no unbatched matrix-vector form
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


def _both_consumers(module):
    """The StableHLO module compiled by the reference runner and by IREE."""
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    return [compile_for_cpu(module, input_dialect="stablehlo"), iree.compile_with_iree(module, "stablehlo")]


@pytest.mark.parametrize("case", CASES)
def test_dynamic_image_size_convolution_on_both_consumers(case):
    in_channels, out_channels, kernel, groups, attributes = CASES[case]
    model = _conv_model(in_channels, out_channels, kernel, groups, attributes)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" not in str(module)
    consumers = _both_consumers(module)
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


def test_grouped_convolution_on_a_dynamic_batch_is_rewritten():
    """A depthwise convolution on a dynamic batch alone (MobileNetV2 exported by torch.export, which
    fixes the image size): neither consumer lowers a grouped `stablehlo.convolution` with a dynamic
    dim, so it is rewritten like a dynamic image size."""
    model = _conv_model(8, 8, (3, 3), 8, {"pads": [1, 1, 1, 1]})
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 7
    model.graph.input[0].type.tensor_type.shape.dim[3].dim_value = 5
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.convolution" not in str(module)
    consumers = _both_consumers(module)
    rng = np.random.default_rng(3)
    for batch in (2, 1):
        x = rng.standard_normal((batch, 8, 7, 5)).astype(np.float32)
        for run in consumers:
            assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


# (op, attributes): torch-mlir lowers max and average pools to `stablehlo.reduce_window`
# (count_include_pad as a convolution of the input reshaped to one channel by a ones kernel).
POOLS = {
    "max-k3s2-pad1": ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "max-dilated": ("MaxPool", {"kernel_shape": [2, 2], "dilations": [2, 2]}),
    "average-k3s2-pad1": ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "average-include-pad": ("AveragePool", {"kernel_shape": [3, 2], "strides": [1, 2], "pads": [1, 0, 1, 1],
                                            "count_include_pad": 1}),
}


@pytest.mark.parametrize("case", POOLS)
def test_dynamic_image_size_pool_on_both_consumers(case):
    op, attributes = POOLS[case]
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], **attributes)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.reduce_window" not in str(module)
    consumers = _both_consumers(module)
    rng = np.random.default_rng(3)
    for batch, height, width in SIZES:
        x = rng.standard_normal((batch, 3, height, width)).astype(np.float32)
        wanted = expected(model, [x])
        for run in consumers:
            assert_matches(run(x), wanted, rtol=1e-5, atol=1e-6)


def test_overlapping_window_of_more_than_64_positions_is_refused_by_name():
    """One slice per window position: an overlapping window of more than MAX_WINDOW_POSITIONS
    (a 9x9 max pool at stride 1) keeps the refusal that names the op and suggests --dim. (Windows
    as large as their stride are blocks of a reshape: test_stablehlo_dynamic_blocks.py.)"""
    from onnx_torch_mlir.errors import OnnxTorchMlirError

    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[9, 9], strides=[1, 1])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    with pytest.raises(OnnxTorchMlirError, match=r"MaxPool.*stablehlo.reduce_window.*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(model, output_type="stablehlo")
