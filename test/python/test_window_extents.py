"""Convolutions and pools whose windows stop short of the input's end (a voice-activity detector's
length-4, kernel-3, stride-2 encoder layer; 2-D, 3-D, grouped, depthwise, dilated, padded forms):
IREE refused torch-mlir's Linalg for them ("'linalg.generic' op inferred input/output operand #1 has
shape's dimension #2 to be 4, but found 3"; on a dynamic batch "slice along dimension 2 runs
out-of-bounds: 3 >= 3") or computed a pool wrongly, and the same on StableHLO with a dynamic batch
or a static pool. The input is now cut to the extent the windows read
(transforms/linalg/window_extents.py, transforms/stablehlo/convolution_padding.py). Run on the
reference runner and IREE against onnxruntime."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

# name: (op, input channels, output channels, kernel, spatial sizes, attributes, groups)
FORMS = {
    "1d": ("Conv", 3, 5, (3,), (4,), {"strides": [2]}, 1),
    "2d": ("Conv", 3, 4, (3, 3), (4, 5), {"strides": [2, 2]}, 1),
    "depthwise": ("Conv", 4, 4, (3, 3), (4, 4), {"strides": [2, 2]}, 4),
    "grouped": ("Conv", 4, 6, (3, 3), (4, 4), {"strides": [2, 2]}, 2),
    "3d": ("Conv", 2, 3, (3, 3, 3), (4, 4, 4), {"strides": [2, 2, 2]}, 1),
    "padded-dilated": ("Conv", 3, 4, (2, 2), (8, 8), {"strides": [2, 2], "dilations": [2, 2], "pads": [1, 1, 1, 1]}, 1),
    "max-pool": ("MaxPool", 3, 3, (3, 3), (4, 4), {"strides": [2, 2]}, 1),
    "average-pool": ("AveragePool", 3, 3, (3, 3), (4, 4), {"strides": [2, 2]}, 1),
}
# (form, backend, declared input: "static", "batch" (dynamic batch) or "spatial" (dynamic batch and
# spatial sizes)): the cells that failed on IREE before.
CELLS = [
    ("1d", "linalg-on-tensors", "static"), ("1d", "linalg-on-tensors", "batch"),
    ("1d", "linalg-on-tensors", "spatial"), ("2d", "linalg-on-tensors", "batch"),
    ("depthwise", "linalg-on-tensors", "static"), ("grouped", "linalg-on-tensors", "batch"),
    ("3d", "linalg-on-tensors", "static"), ("padded-dilated", "linalg-on-tensors", "spatial"),
    ("max-pool", "linalg-on-tensors", "batch"), ("average-pool", "linalg-on-tensors", "static"),
    ("1d", "stablehlo", "batch"), ("2d", "stablehlo", "batch"), ("3d", "stablehlo", "batch"),
    ("max-pool", "stablehlo", "static"), ("average-pool", "stablehlo", "static"),
]


def _model(form, declared):
    op, in_channels, out_channels, kernel, spatial, attributes, groups = FORMS[form]
    batch = 2 if declared == "static" else "N"
    sizes = list(spatial) if declared != "spatial" else ["H", "W", "D"][: len(spatial)]
    initializers, inputs = [], ["x"]
    if op == "Conv":
        weight = np.random.default_rng(0).standard_normal((out_channels, in_channels // groups, *kernel))
        initializers = [numpy_helper.from_array(weight.astype(np.float32), "w")]
        inputs.append("w")
        attributes = dict(attributes, group=groups)
    else:
        attributes = dict(attributes, kernel_shape=list(kernel))
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], **attributes)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, in_channels, *sizes])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("form,backend,declared", CELLS, ids=["-".join(cell) for cell in CELLS])
def test_windows_short_of_the_input_end(form, backend, declared, consumer):
    if consumer == "iree":
        pytest.importorskip("iree.compiler")
    model = _model(form, declared)
    run = program(onnx_torch_mlir.compile(model, output_type=backend), backend, consumer)
    _, in_channels, _, _, spatial, _, _ = FORMS[form]
    x = np.random.default_rng(1).standard_normal((2, in_channels, *spatial)).astype(np.float32)
    assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-5)


def test_the_reference_runner_verifies_the_windows_it_is_given():
    """MLIR's verifier checks a static window's last read against the input's size; the reference
    runner verifies what it parses, so a convolution reading past its input is refused, not run."""
    from onnx_torch_mlir.errors import RunnerError
    from onnx_torch_mlir.runtime import compile_for_cpu

    reads_past_the_input = """
    func.func @g(%x: tensor<1x3x4xf32>) -> tensor<1x5x2xf32> {
      %zero = arith.constant 0.0 : f32
      %w = arith.constant dense<1.0> : tensor<5x3x3xf32>
      %empty = tensor.empty() : tensor<1x5x2xf32>
      %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x5x2xf32>) -> tensor<1x5x2xf32>
      %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>}
        ins(%x, %w : tensor<1x3x4xf32>, tensor<5x3x3xf32>) outs(%init : tensor<1x5x2xf32>) -> tensor<1x5x2xf32>
      return %y : tensor<1x5x2xf32>
    }"""
    with pytest.raises(RunnerError, match="to be greater than or equal to 5, but found 4"):
        compile_for_cpu(reads_past_the_input, input_dialect="linalg-on-tensors")
