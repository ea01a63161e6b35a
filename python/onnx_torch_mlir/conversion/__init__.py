"""Our ONNX-to-Torch conversion: patterns per op family, passes, and the pipeline.

`convert_onnx_to_torch_backend_contract(module, backend_legal_ops=())` converts an
imported module (torch-ONNX or ONNX dialect spelling) in place to torch-mlir's
backend contract. `onnx_to_torch` holds the registry, node view, builder and
the op family modules; `passes` makes them MLIR passes.
"""

from .passes import (  # noqa: F401
    OUR_PASSES,
    convert_onnx_to_torch_backend_contract,
    convert_onnx_to_torch_pipeline,
    run_pipeline,
)
