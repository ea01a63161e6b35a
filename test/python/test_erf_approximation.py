"""`math.erf` on f32 as one rational function on Linalg (transforms/linalg/erf_approximation.py): the
same bits as the StableHLO route's `chlo.erf` lowering, within a few units in the last place of
onnxruntime's Erf over [-6, 6], NaN, infinities and signed zeros kept; f64 keeps `math.erf`."""

import math

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import expected

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -3.9999, 4.0, 4.5], np.float32)
VALUES = np.concatenate([np.linspace(-6, 6, 4001, dtype=np.float32), SPECIALS])


def _erf_model(element=TensorProto.FLOAT):
    graph = helper.make_graph([helper.make_node("Erf", ["x"], ["y"])], "erf_graph",
                              [helper.make_tensor_value_info("x", element, [VALUES.size])],
                              [helper.make_tensor_value_info("y", element, [VALUES.size])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in units in the last place between finite f32 arrays of one sign pattern."""
    return int(np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64)).max())


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_erf_within_a_few_ulps_of_onnxruntime(consumer):
    model = _erf_model()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "math.erf" not in str(module)  # the rewrite ran
    (result,) = program(module, "linalg-on-tensors", consumer)(VALUES)
    (reference,) = expected(model, [VALUES])
    finite = np.isfinite(VALUES) & (VALUES != 0)
    assert _ulps(result[finite], reference[finite]) <= 8
    np.testing.assert_array_equal(result[~finite], reference[~finite])  # NaN, +-1 at +-inf, signed zeros
    assert np.signbit(result[VALUES == 0]).tolist() == np.signbit(VALUES[VALUES == 0]).tolist()


def test_erf_same_bits_as_the_stablehlo_route():
    model = _erf_model()
    results = [program(onnx_torch_mlir.compile(model, backend), backend, "reference")(VALUES)[0]
               for backend in ("linalg-on-tensors", "stablehlo")]
    np.testing.assert_array_equal(results[0].view(np.int32), results[1].view(np.int32))


def test_double_erf_keeps_math_erf():
    model = _erf_model(TensorProto.DOUBLE)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "math.erf" in str(module)
    values = VALUES.astype(np.float64)
    (result,) = program(module, "linalg-on-tensors", "reference")(values)
    # onnxruntime has no double Erf: Python's math.erf is the reference
    np.testing.assert_allclose(result, [math.erf(value) for value in values], rtol=1e-14, atol=1e-300)
