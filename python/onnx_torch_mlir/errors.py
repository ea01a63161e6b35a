"""The errors the package raises on purpose.

Every error a user can provoke (a bad file, an unsupported op, an unlowerable
type) is an `OnnxTorchMlirError` whose message is one line naming what is wrong;
the command-line tools print it as `onnx-torch-mlir: error: <message>` and exit
non-zero. Anything else escaping is a bug in this package.
"""


class OnnxTorchMlirError(Exception):
    """Base class: a user-facing error with a one-line message."""


class ModelLoadError(OnnxTorchMlirError):
    """The input is not a readable ONNX model (missing, truncated, not protobuf...)."""


class ImportError_(OnnxTorchMlirError):
    """The model is readable but cannot be imported to MLIR (untyped value, cycle...)."""


class ConversionError(OnnxTorchMlirError):
    """An ONNX op (or a whole pipeline step) could not be converted."""


class PipelineError(OnnxTorchMlirError):
    """An MLIR pass pipeline failed; the message carries MLIR's diagnostics."""


class RunnerError(OnnxTorchMlirError):
    """The reference CPU runner could not compile or run a program."""


class UnsupportedTypeError(RunnerError):
    """A type MLIR cannot lower to native code (float8 today) or numpy cannot hold."""


class BackendDisabledError(OnnxTorchMlirError):
    """A backend path switched off by configuration was asked for."""


class OnnxTorchMlirWarning(UserWarning):
    """Something the user gave was questionable but is handled; the CLI prints it as `warning:`."""
