"""onnxruntime's CPU outputs for a model, and the comparison the numeric tests share."""

import numpy as np
import onnxruntime


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
