"""The forms compile's `weights=` takes, named where the command line can read them without
loading MLIR (transforms/output_form.py and transforms/external_weights.py implement them)."""

import contextlib
import os
import tempfile

WEIGHTS_FORMS = ("resources", "inline", "arguments", "parameters")
# The forms that take the weights out of the module into a file, and that file's extension.
EXTERNAL_FORMS = ("arguments", "parameters")
FILE_SUFFIXES = {"arguments": ".safetensors", "parameters": ".irpa"}
# The smallest constant the external forms take out, in bytes.
DEFAULT_MIN_BYTES = 1024


@contextlib.contextmanager
def temporary_weights_file(form: str):
    """A path for the weights file of `form` in a temporary directory, removed afterwards (a
    program that mapped the file keeps its mapping)."""
    with tempfile.TemporaryDirectory(prefix="onnx-torch-mlir-weights-") as directory:
        yield os.path.join(directory, f"weights{FILE_SUFFIXES[form]}")
