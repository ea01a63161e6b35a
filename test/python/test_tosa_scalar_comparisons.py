"""Float comparisons with a number stay in the tensor's type on TOSA
(transforms/tosa/scalar_comparisons.py): torch-mlir's lowering compared them in float64."""

import numpy as np
import pytest
from torch_mlir import ir

from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.pipelines import lower_torch_to_backend
from onnx_torch_mlir.runtime import compile_for_cpu

_MODULE = """
func.func @main(%x: !torch.vtensor<[5],f32>) -> (!torch.vtensor<[5],i1>, !torch.vtensor<[5],i1>, !torch.vtensor<[5],i1>) {
  %zero = torch.constant.float 0.000000e+00
  %inf = torch.constant.float 0x7FF0000000000000
  %tenth = torch.constant.float 1.000000e-01
  %0 = torch.aten.ge.Scalar %x, %zero : !torch.vtensor<[5],f32>, !torch.float -> !torch.vtensor<[5],i1>
  %1 = torch.aten.eq.Scalar %x, %inf : !torch.vtensor<[5],f32>, !torch.float -> !torch.vtensor<[5],i1>
  %2 = torch.aten.gt.Scalar %x, %tenth : !torch.vtensor<[5],f32>, !torch.float -> !torch.vtensor<[5],i1>
  return %0, %1, %2 : !torch.vtensor<[5],i1>, !torch.vtensor<[5],i1>, !torch.vtensor<[5],i1>
}
"""


@pytest.fixture
def tosa_module():
    with make_context():
        module = ir.Module.parse(_MODULE)
        lower_torch_to_backend(module, "tosa")
        yield module


def test_comparisons_are_in_float32(tosa_module):
    text = str(tosa_module)
    assert "tosa.greater_equal" in text and "tosa.equal" in text and "tosa.greater " in text
    assert "f64" not in text
    assert "0x7F800000" in text  # +inf as an f32 literal


def test_the_answers_are_unchanged(tosa_module):
    """As before (and as torch, which casts the number to the tensor's dtype): 0.1 is f32(0.1)."""
    x = np.array([-1.0, 0.0, np.float32(0.1), np.inf, np.nan], np.float32)
    at_least_zero, infinite, over_tenth = compile_for_cpu(tosa_module, input_dialect="tosa")(x)
    assert at_least_zero.tolist() == [False, True, True, True, False]
    assert infinite.tolist() == [False, False, False, True, False]
    assert over_tenth.tolist() == [False, False, False, True, False]
