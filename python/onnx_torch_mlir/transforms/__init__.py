"""Rewrites of the Torch dialect and of the backends' output around torch-mlir's lowerings, and the
form the output is handed over in (output_form.py). The passes of the ONNX-to-Torch pipeline itself
(signatures, bridging casts, the entry point) are in conversion/."""
