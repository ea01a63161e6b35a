"""onnx-torch-mlir: ONNX models into MLIR.

- `import_onnx(model, form="onnx" | "torch-onnx")`: the ONNX model in MLIR;
- `compile(model, output_type="torch" | "linalg-on-tensors" | "tosa" | "stablehlo")`:
  through torch-mlir's Torch dialect to a backend;
- `onnx_torch_mlir.runtime`: the reference CPU runner for Linalg (and TOSA,
  StableHLO) output, and `onnx_torch_mlir.runtime.backend`, an ONNX backend.
"""

__version__ = "0.1.0"

from .errors import OnnxTorchMlirError  # noqa: E402,F401


def __getattr__(name):
    # Lazy, so `onnx-torch-mlir --help` does not load MLIR.
    if name == "compile":
        from .compiler import compile

        return compile
    if name == "import_onnx":
        from .importer import import_onnx

        return import_onnx
    raise AttributeError(name)
