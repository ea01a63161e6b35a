"""tools/kernel_models.py writes the one-op reproducers docs/performance.md times: valid models that
onnxruntime runs to their declared output shapes."""

import numpy as np
import onnx
import pytest
from tool_modules import load_tool

onnxruntime = pytest.importorskip("onnxruntime")
kernel_models = load_tool("kernel_models")


def test_writes_each_model(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["kernel_models.py", str(tmp_path)])
    assert kernel_models.main() == 0
    for name in kernel_models.MODELS:
        path = tmp_path / f"{name}.onnx"
        model = onnx.load(str(path))
        shape = [dim.dim_value for dim in model.graph.input[0].type.tensor_type.shape.dim]
        expected = [dim.dim_value for dim in model.graph.output[0].type.tensor_type.shape.dim]
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (result,) = session.run(None, {"x": np.ones(shape, np.float32)})
        assert list(result.shape) == expected and np.isfinite(result).all()
