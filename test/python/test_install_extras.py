"""The extras match the commands, and every hint for a missing package names the smallest one."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import onnx
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "onnx_torch_mlir"


def _extras() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_command_extras_use_the_test_pins():
    extras = _extras()
    assert extras["verify"] == ["onnxruntime==1.31.1"]
    assert sorted(extras["iree"]) == ["iree-base-compiler==3.13.0", "iree-base-runtime==3.13.0"]
    assert sorted(extras["xla"]) == ["jax==0.10.2", "jaxlib==0.10.2"]
    for name in ("verify", "iree", "xla"):
        assert set(extras[name]) <= set(extras["test"]), f"[{name}] pins what [test] does not"


def test_no_hint_names_the_test_extra():
    hints = []
    for path in PACKAGE.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"onnx-torch-mlir\[test\]", line):
                hints.append(f"{path.relative_to(ROOT)}:{number}")
    assert not hints, f"hints naming [test]: {hints}"


def test_verify_without_onnxruntime_names_the_verify_extra(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    # onnxruntime hidden from the child: `import onnxruntime` raises ImportError.
    program = (
        "import sys; sys.modules['onnxruntime'] = None; "
        "from onnx_torch_mlir.tools.main import main; sys.exit(main(sys.argv[1:]))"
    )
    result = subprocess.run([sys.executable, "-c", program, "verify", str(model)], capture_output=True, text=True)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == ["onnx-torch-mlir: error: verify needs onnxruntime: pip install 'onnx-torch-mlir[verify]'"], result.stderr
