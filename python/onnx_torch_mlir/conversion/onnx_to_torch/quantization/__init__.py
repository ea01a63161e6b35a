"""Quantization: QuantizeLinear/DequantizeLinear and the integer ops of the ONNX domain, and the
quantized operators of com.microsoft (onnxruntime's QOperator format).

One family in several modules that share `arith.py` (exact conversions, the division and
rounding of quantization, requantization, torch-mlir's quantized tensor form):
- `linear.py`: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear;
- `integer.py`: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv;
- `microsoft.py`: the com.microsoft quantized operators (QLinearAdd, QGemm, ...).

docs/quantization.md says which forms stay integer on which backend.
"""

from . import integer, linear, microsoft  # noqa: F401
