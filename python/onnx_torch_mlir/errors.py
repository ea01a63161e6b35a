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


class DynamicDimsError(PipelineError):
    """A backend form needs a static size where the module has a dynamic dim.

    `reason` says which op needs which size, `hint` how to fix dims (the generic STATIC_DIMS_HINT
    where only the module is known); `compile` replaces the hint by the graph inputs' dims still
    dynamic and the flags that fix them (importer/open_dims.py). `details`: further lines."""

    def __init__(self, reason: str, hint: str = "", details: str = ""):
        text = f"{reason} ({hint})" if hint else reason
        super().__init__(f"{text}\n{details}" if details else text)
        self.reason, self.hint, self.details = reason, hint, details

    def with_hint(self, hint: str) -> "DynamicDimsError":
        return DynamicDimsError(self.reason, hint, self.details)

    def __reduce__(self):
        return (type(self), (self.reason, self.hint, self.details))


class RunnerError(OnnxTorchMlirError):
    """The reference CPU runner could not compile or run a program."""


class UnsupportedTypeError(RunnerError):
    """A type MLIR cannot lower to native code (float8 today) or numpy cannot hold."""


class WeightsFileError(OnnxTorchMlirError):
    """A weights file (safetensors, IREE parameter archive) cannot be written or read; the message names it."""


class BackendDisabledError(OnnxTorchMlirError):
    """A backend path switched off by configuration was asked for."""


class OnnxTorchMlirWarning(UserWarning):
    """Something the user gave was questionable but is handled; the CLI prints it as `warning:`."""


class InternalCompilerError(OnnxTorchMlirError):
    """The compiler itself crashed (a pass aborted or faulted) in an isolated child process.

    `step` is the pipeline step that was running, `reproducer` the path of a file holding that
    step's input IR (None when it could not be made). A bug to report, not a problem of the model.
    """

    def __init__(self, message: str, step: str = "", reproducer: str | None = None):
        super().__init__(message)
        self.step = step
        self.reproducer = reproducer

    def __reduce__(self):
        return (type(self), (str(self), self.step, self.reproducer))
