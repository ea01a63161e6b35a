"""The width a string is held at as bytes, named where the command line reads it without loading
onnx or MLIR (importer/string_bytes.py implements the form, runtime/string_inputs.py encodes inputs)."""

DEFAULT_STRING_BYTES = 256
