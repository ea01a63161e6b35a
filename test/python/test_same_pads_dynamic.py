"""auto_pad SAME_UPPER / SAME_LOWER with a stride on dynamic spatial sizes (tf2onnx's Keras
`padding="same"` convolutions and pools on a dynamic image size), compiled to Linalg and StableHLO,
run on the reference runner and IREE at several sizes, compared with onnxruntime.

The padding total of a dim depends on its size, effective - ((size - 1) mod stride + 1) clamped at
0: the conversion computes it at run time and pads the input explicitly (zeros for Conv, the lowest
value for MaxPool; AveragePool and LpPool sum windows, so the pads count only with
count_include_pad). Before, such a node was refused ("needs a static spatial size")."""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.errors import OnnxTorchMlirError

from consumers import program

SIZES = [(1, 3, 9, 10), (2, 3, 8, 7), (1, 3, 5, 6)]
# (op, attributes); kernel 1 with stride 2 is the case whose total would be negative (clamped).
CASES = {
    "conv-upper-k3s2": ("Conv", {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, 3),
    "conv-lower-k4s3": ("Conv", {"auto_pad": "SAME_LOWER", "strides": [3, 2]}, 4),
    "conv-upper-k1s2": ("Conv", {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, 1),
    "max-upper-k3s2": ("MaxPool", {"auto_pad": "SAME_UPPER", "strides": [2, 2], "kernel_shape": [3, 3]}, None),
    "average-upper-k3s2": ("AveragePool", {"auto_pad": "SAME_UPPER", "strides": [2, 2], "kernel_shape": [3, 3]},
                           None),
    "average-lower-k3s2-include-pad": (
        "AveragePool", {"auto_pad": "SAME_LOWER", "strides": [2, 2], "kernel_shape": [3, 2], "count_include_pad": 1},
        None,
    ),
    "lp-upper-k3s2": ("LpPool", {"auto_pad": "SAME_UPPER", "strides": [2, 3], "kernel_shape": [3, 3], "p": 2}, None),
}
BACKEND_CONSUMERS = [("linalg-on-tensors", "reference"), ("linalg-on-tensors", "iree"), ("stablehlo", "reference"),
                     ("stablehlo", "iree")]


def _model(op: str, attributes: dict, kernel: int | None) -> onnx.ModelProto:
    inputs, initializers = ["x"], []
    if kernel is not None:
        weight = np.random.default_rng(0).standard_normal((4, 3, kernel, kernel)).astype(np.float32)
        initializers.append(numpy_helper.from_array(weight, "w"))
        inputs.append("w")
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], name="same", **attributes)], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


@pytest.mark.parametrize("backend,consumer", BACKEND_CONSUMERS)
@pytest.mark.parametrize("case", CASES)
def test_same_pads_on_dynamic_sizes(case, backend, consumer):
    model = _model(*CASES[case])
    run = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for shape in SIZES:
        x = rng.standard_normal(shape, dtype=np.float32)
        (expected,) = session.run(None, {"x": x})
        (got,) = run(x)
        assert got.shape == expected.shape, f"at {shape}"
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=f"at {shape}")


def test_same_pads_with_ceil_mode_on_a_dynamic_size_is_refused():
    model = _model("MaxPool", {"auto_pad": "SAME_UPPER", "strides": [2, 2], "kernel_shape": [3, 3], "ceil_mode": 1},
                   None)
    with pytest.raises(OnnxTorchMlirError, match=r"node 'same' .*ceil_mode with auto_pad SAME_UPPER .*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
