"""ONNX's own backend test runner drives the whole compiler through our Backend."""

import unittest

import numpy as np
import onnx.backend.test
from onnx import TensorProto, helper

from onnx_torch_mlir.runtime import backend as otm_backend
from onnx_torch_mlir.runtime.backend import OnnxTorchMlirBackend

# A handful of node cases across op families, run by onnx.backend.test.BackendTest itself.
CASES = ["test_relu", "test_add_bcast", "test_matmul_2d", "test_transpose_default", "test_softmax_axis_1"]


def _onnx_backend_suite() -> unittest.TestSuite:
    backend_test = onnx.backend.test.BackendTest(otm_backend, __name__)
    for name in CASES:
        backend_test.include(f"^{name}_cpu$")
    return backend_test.test_suite


def test_onnx_backend_test_runner_passes_selected_cases():
    result = unittest.TextTestRunner(verbosity=0).run(_onnx_backend_suite())
    assert result.wasSuccessful(), result.failures + result.errors
    # Every other case is skipped by the include patterns; ours ran for real.
    assert result.testsRun - len(result.skipped) == len(CASES)


def test_run_node_infers_output_types():
    node = helper.make_node("Mul", ["a", "b"], ["c"])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    (c,) = OnnxTorchMlirBackend.run_node(node, [a, a])
    np.testing.assert_array_equal(c, a * a)


def test_unsigned_outputs_come_back_unsigned():
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        "g",
        [helper.make_tensor_value_info(name, TensorProto.UINT8, [3]) for name in ("x", "y")],
        [helper.make_tensor_value_info("z", TensorProto.UINT8, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.array([200, 1, 2], np.uint8)
    (z,) = OnnxTorchMlirBackend.run_model(model, [x, x])
    assert z.dtype == np.uint8
    np.testing.assert_array_equal(z, x + x)


def test_only_cpu_is_supported():
    assert OnnxTorchMlirBackend.supports_device("CPU")
    assert not OnnxTorchMlirBackend.supports_device("CUDA")
