"""onnxruntime's CPU outputs for a model, and the comparison the numeric tests share."""

import functools

import numpy as np
import onnxruntime
import pytest


def expected(model, arrays):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [value.name for value in model.graph.input]
    return session.run(None, dict(zip(names, arrays)))


def assert_matches(outputs, wanted, rtol=1e-5, atol=1e-6):
    assert len(outputs) == len(wanted)
    for got, want in zip(outputs, wanted):
        got = np.asarray(got)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@functools.cache
def uint8_int8_saturation() -> int:
    """How far onnxruntime's MatMulInteger of uint8 by int8 is from exact integer arithmetic on this
    CPU, on operands near their extremes: 0 where it is exact. Without AVX-VNNI its x86 kernels add
    pairs of products in 16 bits (vpmaddubsw), which saturate (measured 651887 on an AMD EPYC)."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "probe",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [4, 64]),
         helper.make_tensor_value_info("b", TensorProto.INT8, [64, 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [4, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    rng = np.random.default_rng(0)
    a = rng.integers(200, 256, (4, 64)).astype(np.uint8)
    b = rng.integers(100, 128, (64, 8)).astype(np.int8)
    (got,) = expected(model, [a, b])
    return int(np.abs(got.astype(np.int64) - a.astype(np.int64) @ b.astype(np.int64)).max())


def skip_if_uint8_int8_saturates() -> None:
    """Skip a test whose reference is onnxruntime's uint8 x int8 arithmetic where that saturates."""
    error = uint8_int8_saturation()
    if error:
        pytest.skip(f"onnxruntime's uint8 x int8 kernels saturate on this CPU (no AVX-VNNI): MatMulInteger is off "
                    f"by up to {error} from exact integer arithmetic here, so it is no reference for these operands")
