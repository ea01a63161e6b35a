"""ConvTranspose with asymmetric pads and output_padding, compiled to each backend, run on the
reference runner and compared with onnxruntime.

torch's transposed convolution pads symmetrically and extends only the end; the conversion runs
it with the common padding and crops or zero-extends each end for the rest. A dim whose
output_padding reaches past its end pad keeps real contributions in the extension's first rows
(they were once zero-filled: pads [1, 0, 1, 2], output_padding [1, 0] gave a bias-only row 9).
Tolerance rtol 1e-4, atol 1e-5 (float32 sums in different orders).
"""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")

# (pads [begin..., end...], output_padding, strides, kernel, input spatial sizes)
FORMS = {
    "end_pad_below_output_padding": ([1, 0, 1, 2], [1, 0], [2, 2], [3, 3], [5, 7]),
    "output_padding_beyond_end_pad": ([2, 1, 0, 1], [1, 1], [2, 2], [3, 3], [4, 4]),
    "negative_like_crop_and_extend": ([0, 2, 2, 0], [1, 1], [3, 2], [3, 3], [4, 5]),
    "one_dim": ([2, 1], [1], [2], [4], [6]),
}


def _model(pads, output_padding, strides, kernel, spatial, rng):
    rank = len(spatial)
    x_shape = [1, 2, *spatial]
    weight = rng.standard_normal([2, 3, *kernel]).astype(np.float32)
    bias = rng.standard_normal([3]).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], pads=pads, output_padding=output_padding,
                            strides=strides)
    out = [s * (n - 1) + op + k - pads[i] - pads[i + rank]
           for i, (s, n, op, k) in enumerate(zip(strides, spatial, output_padding, kernel))]
    graph = helper.make_graph(
        [node], "conv_transpose",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, *out])],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, weight.shape, weight.ravel()),
                     helper.make_tensor("b", TensorProto.FLOAT, bias.shape, bias)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, x_shape


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_conv_transpose_pads_match_onnxruntime(form, backend):
    rng = np.random.default_rng(7)
    model, x_shape = _model(*FORMS[form], rng)
    x = rng.standard_normal(x_shape).astype(np.float32)
    expected = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    module = onnx_torch_mlir.compile(model, backend)
    (got,) = runtime.run(module, [x], input_dialect=backend)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
