#!/usr/bin/env bash
# Smoke test of the built wheel: install it into a fresh virtual environment, with nothing from the
# repository on the path, and use it the way a user would.
#
#     tools/wheel_smoke.sh [dist/onnx_torch_mlir-VERSION-py3-none-any.whl]
#
# Installs the wheel with its `verify` extra (onnxruntime), as `make demo`'s .venv-demo does, and fails
# when that venv is over 700 MB. Runs `onnx-torch-mlir --version` (must print the wheel's version), `onnx-torch-mlir demo`, a compile
# of a small generated model to torch and to each backend (text and bytecode), and the Python API
# (compile, then run on the reference CPU runner against numpy). torch is not installed: the wheel
# does not depend on it (only the Makefile's test extras do), and the test fails if pip pulls it in.
# pip may take every dependency from its cache. Prints the seconds each step took.
set -euo pipefail
REPOSITORY="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3.11}"
MAX_VENV_MB=700
WHEEL="${1:-$(ls -t "$REPOSITORY"/dist/onnx_torch_mlir-*.whl 2>/dev/null | head -n 1)}"
if [[ -z "$WHEEL" || ! -f "$WHEEL" ]]; then
  echo "wheel_smoke: no wheel (run make wheel, or pass its path)" >&2
  exit 2
fi
WHEEL="$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")"
VERSION="$(basename "$WHEEL" | cut -d- -f2)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/onnx-torch-mlir-wheel.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# Nothing from the repository: run from the work directory, no PYTHONPATH, no user site.
cd "$WORK"
unset PYTHONPATH
export PYTHONNOUSERSITE=1
START=$SECONDS
step() { echo "wheel_smoke: [$((SECONDS - START))s] $*"; }

step "fresh venv ($PYTHON), installing $(basename "$WHEEL")"
"$PYTHON" -m venv venv
BIN="$WORK/venv/bin"
"$BIN/python" -m pip install --quiet --disable-pip-version-check "$WHEEL[verify]"
if "$BIN/python" -m pip show --quiet torch >/dev/null 2>&1; then
  echo "wheel_smoke: the wheel pulled in torch; it must not depend on it" >&2
  exit 1
fi
# The install weight `make demo`'s .venv-demo has (the package and its `verify` extra): bounded.
SIZE_MB="$(du -sm "$WORK/venv" | cut -f1)"
echo "wheel_smoke: the venv with onnx-torch-mlir[verify] is $SIZE_MB MB (limit $MAX_VENV_MB MB)"
if (( SIZE_MB > MAX_VENV_MB )); then
  echo "wheel_smoke: the venv with onnx-torch-mlir[verify] is $SIZE_MB MB, over $MAX_VENV_MB MB" >&2
  exit 1
fi

step "onnx-torch-mlir --version"
printed="$("$BIN/onnx-torch-mlir" --version)"
echo "$printed"
[[ "$printed" == "onnx-torch-mlir $VERSION" ]] || { echo "wheel_smoke: expected version $VERSION" >&2; exit 1; }

step "the package comes from the fresh venv"
"$BIN/python" - <<'EOF'
import onnx_torch_mlir, sys
location = onnx_torch_mlir.__file__
assert location.startswith(sys.prefix), f"onnx_torch_mlir imported from {location}, not the fresh venv"
print(location)
EOF

step "onnx-torch-mlir demo"
"$BIN/onnx-torch-mlir" demo > demo.log || { cat demo.log; exit 1; }
tail -n 3 demo.log

step "a small model, compiled to each output type"
"$BIN/python" - <<'EOF'
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
weight = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
bias = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
projection = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "p")
nodes = [
    helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"]),
    helper.make_node("GlobalAveragePool", ["r"], ["g"]),
    helper.make_node("Flatten", ["g"], ["f"]),
    helper.make_node("MatMul", ["f", "p"], ["m"]),
    helper.make_node("Softmax", ["m"], ["y"], axis=-1),
]
graph = helper.make_graph(
    nodes, "smoke", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], [weight, bias, projection],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "smoke.onnx")
EOF
for target in torch linalg-on-tensors tosa stablehlo; do
  "$BIN/onnx-torch-mlir" compile smoke.onnx --to "$target" -o "smoke.$target.mlir"
  "$BIN/onnx-torch-mlir" compile smoke.onnx --to "$target" --emit-bytecode -o "smoke.$target.mlirbc"
  [[ -s "smoke.$target.mlir" && -s "smoke.$target.mlirbc" ]]
  grep -q "func.func @" "smoke.$target.mlir"
  echo "  $target: $(wc -c < "smoke.$target.mlir") bytes of text, $(wc -c < "smoke.$target.mlirbc") of bytecode"
done

step "onnx-torch-mlir verify (the verify extra is enough)"
"$BIN/onnx-torch-mlir" verify smoke.onnx | tail -n 1

step "the Python API"
"$BIN/python" - <<'EOF'
import numpy as np
import onnx
import onnx_torch_mlir
from onnx.reference import ReferenceEvaluator
from onnx_torch_mlir.runtime import compile_for_cpu

x = np.random.default_rng(1).standard_normal((2, 3, 16, 16)).astype(np.float32)
expected = ReferenceEvaluator(onnx.load("smoke.onnx")).run(None, {"x": x})[0]
for backend in ("linalg-on-tensors", "tosa", "stablehlo"):
    module = onnx_torch_mlir.compile("smoke.onnx", output_type=backend)
    outputs = compile_for_cpu(module, input_dialect=backend)(x)
    actual = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
    print(f"  {backend}: compiled and ran, matches onnx's reference evaluator")
imported = onnx_torch_mlir.import_onnx("smoke.onnx", form="onnx")
assert "onnx.Conv" in str(imported), "the ONNX-dialect import lost the Conv"
print("  import_onnx: ONNX dialect")
EOF

step "passed"
