"""StableHLO convolutions keep no padding their windows never read
(transforms/stablehlo/convolution_padding.py): IREE miscompiles a stride-2 convolution padded past its
last window, as MobileNetV2's "same" padding at odd image sizes is."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu
from onnxruntime_reference import assert_matches, expected


def _pad_then_strided_conv(groups: int):
    """Pad (0, 0, 0, 0) / (0, 0, 1, 1) then a 3x3 stride-2 convolution of a 3x5 image."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((8, 8 // groups, 3, 3)).astype(np.float32)
    pads = numpy_helper.from_array(np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64), "pads")
    graph = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads"], ["padded"]),
         helper.make_node("Conv", ["padded", "w"], ["y"], strides=[2, 2], group=groups)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8, 3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 8, 1, 2])],
        [numpy_helper.from_array(weight, "w"), pads],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("groups", [1, 8])
def test_unread_padding_is_dropped_and_both_consumers_match(groups):
    model = _pad_then_strided_conv(groups)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    text = str(module)
    assert "stablehlo.pad" not in text  # folded into the convolution
    assert "pad = [[0, 0], [0, 0]]" in text  # and the unread row and column dropped
    x = np.random.default_rng(1).standard_normal((3, 8, 3, 5)).astype(np.float32)
    wanted = expected(model, [x])
    assert_matches(compile_for_cpu(module, input_dialect="stablehlo")(x), wanted, rtol=1e-4, atol=1e-5)
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    assert_matches(iree.compile_with_iree(module, "stablehlo")(x), wanted, rtol=1e-4, atol=1e-5)


def test_input_no_window_reads_is_sliced_off_and_both_consumers_match():
    """A 2x2 stride-2 convolution of a 3x5 image (ConvNeXt's downsampling at odd sizes) reads
    two rows and four columns; IREE miscompiled the convolution of the whole image."""
    weight = np.random.default_rng(0).standard_normal((4, 8, 2, 2)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8, 3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4, 1, 2])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    module = onnx_torch_mlir.compile(model, output_type="stablehlo")
    assert "stablehlo.slice" in str(module) and "tensor<3x8x2x4xf32>" in str(module)
    x = np.random.default_rng(1).standard_normal((3, 8, 3, 5)).astype(np.float32)
    wanted = expected(model, [x])
    assert_matches(compile_for_cpu(module, input_dialect="stablehlo")(x), wanted, rtol=1e-4, atol=1e-5)
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    assert_matches(iree.compile_with_iree(module, "stablehlo")(x), wanted, rtol=1e-4, atol=1e-5)
