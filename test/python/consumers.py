"""A backend's module compiled by one of the two consumers the numeric tests run it on."""

from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree


def program(module, backend: str, consumer: str):
    """`module` (`backend`'s output) compiled by our reference runner ("reference") or by IREE
    ("iree"): a callable that takes numpy arrays and returns the outputs."""
    if consumer == "iree":
        return compile_with_iree(module, backend)
    if consumer == "reference":
        return runtime.compile_for_cpu(module, input_dialect=backend)
    raise ValueError(f"not a consumer: {consumer!r} (reference or iree)")


def compiled_beside_onnxruntime(model, backend: str, consumer: str):
    """`model` compiled for `backend` (on StableHLO with no torch op left) and run by `consumer`, and an
    onnxruntime session of it to compare with."""
    import onnxruntime

    import onnx_torch_mlir

    module = onnx_torch_mlir.compile(model, backend)
    if backend == "stablehlo":
        assert "torch." not in str(module)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return program(module, backend, consumer), session
