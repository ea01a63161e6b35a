"""ONNX dialect helpers: schema lookup and the verifier for `onnx.<OpType>` ops."""
