"""onnxruntime's CPU outputs for a model, and the comparison the numeric tests share."""

import numpy as np
import onnxruntime
import pytest

from onnx_torch_mlir.tools.unsaturated_reference import uint8_int8_saturation  # the probe verify and the harness use


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


def skip_if_uint8_int8_saturates() -> None:
    """Skip a test whose reference is onnxruntime's uint8 x int8 arithmetic where that saturates."""
    error = uint8_int8_saturation()
    if error:
        pytest.skip(f"onnxruntime's uint8 x int8 kernels saturate on this CPU (no AVX-VNNI): MatMulInteger is off "
                    f"by up to {error} from exact integer arithmetic here, so it is no reference for these operands")
