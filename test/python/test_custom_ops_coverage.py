"""A fast slice of the custom-op coverage run (conformance --coverage)."""

import subprocess
import sys


def test_coverage_slice(tmp_path):
    report = tmp_path / "coverage.md"
    command = [sys.executable, "-m", "onnx_torch_mlir.tools.main", "conformance", "--coverage", "--jobs", "1",
               "-k", "node/test_layer_normalization_2d_axis0", "-k", "node/test_concat_1d_axis_0",
               "-k", "node/test_relu", "--coverage-report", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    text = report.read_text()
    assert "| `aten.native_layer_norm` | 1 | custom" in text
    assert "| `aten.relu` | 1 | custom" in text
    assert "`aten.cat` | 1 | rejected:tensor-list" in text
    assert "**rejected:tensor-list**" in text
