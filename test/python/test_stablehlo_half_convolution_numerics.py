"""A half-precision Conv on StableHLO, run on the reference CPU runner and on IREE: computed in f32
and rounded once (transforms/stablehlo/half_convolutions.py), as torch-mlir's Linalg lowering
computes it. Accumulated in f16, as both consumers did with the f16 convolution, 144 products per
output were off by several f16 ulps.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree


def _model(element: int):
    node = helper.make_node("Conv", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "conv_half",
        [helper.make_tensor_value_info("x", element, [1, 16, 6, 6]),
         helper.make_tensor_value_info("w", element, [8, 16, 3, 3])],
        [helper.make_tensor_value_info("y", element, [1, 8, 4, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _conv_f32(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The valid 2-D convolution in float32."""
    windows = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(1, 2))  # [c, 4, 4, 3, 3]
    return np.einsum("chwij,ocij->ohw", windows, w)[None]


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_f16_convolution_rounds_once(consumer):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, (1, 16, 6, 6)).astype(np.float16)
    w = rng.uniform(0.5, 1.5, (8, 16, 3, 3)).astype(np.float16)
    module = onnx_torch_mlir.compile(_model(TensorProto.FLOAT16), "stablehlo")
    if consumer == "iree":
        (got,) = compile_with_iree(module, "stablehlo")(x, w)
    else:
        (got,) = runtime.compile_for_cpu(module, input_dialect="stablehlo")(x, w)
    want = _conv_f32(x.astype(np.float32), w.astype(np.float32)).astype(np.float16)
    assert got.dtype == np.float16
    # One rounding of an f32 sum: at most one f16 ulp apart (sums near 144 have an ulp of 0.125).
    ulps = np.abs(got.astype(np.float32) - want.astype(np.float32)) / np.spacing(want).astype(np.float32)
    assert ulps.max() <= 1, ulps.max()
