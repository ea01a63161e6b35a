"""What every command-line tool shares: one-line errors, exit codes, safe output files."""

import argparse
import contextlib
import os
import stat
import sys
import tempfile
import warnings
from pathlib import Path

from ..errors import OnnxTorchMlirError, OnnxTorchMlirWarning

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
# Set to see the Python traceback of an internal error instead of its one-line report.
TRACEBACK_VARIABLE = "ONNX_TORCH_MLIR_TRACEBACK"


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line, not a usage dump."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def fail(prog: str, message: str, status: int = EXIT_ERROR) -> int:
    first_line = str(message).strip().splitlines()[0] if str(message).strip() else "unknown error"
    print(f"{prog}: error: {first_line}", file=sys.stderr)
    return status


def run_guarded(prog: str, action, *args, isolated: bool = False, replayable: bool = True) -> int:
    """Run `action(*args)`; user-facing errors become one line on stderr and exit 1, bugs exit 3.

    `isolated`: run it in a forked child (onnx_torch_mlir.isolation), so that a crash inside
    MLIR or torch-mlir is one line too: an internal error naming the pipeline step and a
    reproducer file, exit status 3. The command-line entry points isolate; calls of `main(argv)`
    from Python (tests) do not. `replayable`: the action can run twice (not on stdin input).

    Our warnings (`OnnxTorchMlirWarning`) print as `prog: warning: <message>`, once each.
    """
    if isolated:
        from ..isolation import run_isolated

        status, death = run_isolated(lambda: run_guarded(prog, action, *args), replayable=replayable)
        if death is not None and death.interrupted:
            return fail(prog, "interrupted", status)
        if death is not None:
            return fail(prog, death.message(death.reproducer), EXIT_INTERNAL)
        return status
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default", OnnxTorchMlirWarning)
            warnings.showwarning = _warning_printer(prog, warnings.showwarning)
            return action(*args) or EXIT_OK
    except OnnxTorchMlirError as error:
        return fail(prog, str(error))
    except FileNotFoundError as error:
        return fail(prog, f"{error.filename}: no such file")
    except IsADirectoryError as error:
        return fail(prog, f"{error.filename}: is a directory")
    except PermissionError as error:
        return fail(prog, f"{error.filename}: permission denied")
    except KeyboardInterrupt:
        return fail(prog, "interrupted", 130)
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a bug of ours: one line that says where, not a traceback
        if os.environ.get(TRACEBACK_VARIABLE):
            raise
        return fail(prog, internal_error_message(error), EXIT_INTERNAL)


def _warning_printer(prog: str, fallback):
    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, OnnxTorchMlirWarning):
            print(f"{prog}: warning: {message}", file=sys.stderr)
        else:
            fallback(message, category, filename, lineno, file, line)

    return show


def internal_error_message(error: BaseException) -> str:
    """`internal error: KeyError: 'x' (at importer/graph.py:120 in _import_node); ...`."""
    where = _innermost_package_frame(error)
    detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return (
        f"internal error: {type(error).__name__}{': ' + detail if detail else ''}"
        f"{f' (at {where})' if where else ''}; this is a bug in onnx-torch-mlir, please report it "
        f"(set {TRACEBACK_VARIABLE}=1 for the traceback)"
    )


def _innermost_package_frame(error: BaseException) -> str | None:
    package = Path(__file__).resolve().parent.parent
    found = None
    traceback = error.__traceback__
    while traceback is not None:
        path = Path(traceback.tb_frame.f_code.co_filename).resolve()
        if package in path.parents:
            found = f"{path.relative_to(package)}:{traceback.tb_lineno} in {traceback.tb_frame.f_code.co_name}"
        traceback = traceback.tb_next
    return found


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: str | None, binary: bool = False):
    """Yield a writable file; it replaces `path` only if the block succeeds.

    With `path` None or "-", yields stdout. A failure part-way leaves no
    partial output file behind.
    """
    if path in (None, "-"):
        yield sys.stdout.buffer if binary else sys.stdout
        return
    target = Path(path)
    if target.exists() and not target.is_file():
        # /dev/null, a FIFO, a terminal: written in place. Replacing one would put a regular
        # file where the device was (os.replace over /dev/null breaks every process on the host).
        with open(target, "wb" if binary else "w") as stream:
            yield stream
        return
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    except FileNotFoundError:  # the temporary file's name would say nothing to the user
        raise OnnxTorchMlirError(_missing_directory(path)) from None
    try:
        with os.fdopen(handle, "wb" if binary else "w") as stream:
            yield stream
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _missing_directory(path: str) -> str:
    return f"{path}: cannot write it, the directory '{Path(path).parent}' does not exist"


def check_output_path(output: str | None, *, model: str | None = None, inputs=(), flag: str = "-o") -> None:
    """Refuse, before any work, an output that cannot be written or would replace an input.

    Nothing the user gave is ever modified: `output` must not be the `model` or one of the other
    `inputs` (through a symlink or a hard link too, so the test is on device and inode), nor an
    external data file of the ONNX `model`. '-' and None are not files and are skipped.
    """
    if output in (None, "-"):
        return
    directory = Path(output).parent
    if not directory.is_dir():
        raise OnnxTorchMlirError(_missing_directory(output))
    try:
        written = os.stat(output)
    except OSError:
        return  # a new file
    if not stat.S_ISREG(written.st_mode):
        return  # /dev/null, a FIFO: written in place, nothing of the user's is lost
    identity = (written.st_dev, written.st_ino)
    for given in (model, *inputs):
        if given in (None, "-"):
            continue
        with contextlib.suppress(OSError):
            if _identity(given) == identity:
                raise OnnxTorchMlirError(f"{flag} {output}: that is the input {given}; refusing to overwrite it")
    if model in (None, "-") or not Path(output).resolve().is_relative_to(Path(model).resolve().parent):
        return  # external data lives in the model's directory or below
    for tensor, location in _external_data_files(model):
        with contextlib.suppress(OSError):
            if _identity(location) == identity:
                raise OnnxTorchMlirError(
                    f"{flag} {output}: that is the external data of initializer '{tensor}' of the input "
                    f"{model}; refusing to overwrite it"
                )


def _identity(path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_dev, found.st_ino


def _external_data_files(model_path) -> list[tuple[str, Path]]:
    """(tensor name, file) of every external-data tensor of the model; [] when it cannot be read.

    Only asked when the output already exists in the model's directory, so rarely paid."""
    from onnx.external_data_helper import _get_all_tensors

    from ..errors import ModelLoadError
    from ..importer.loading import open_model

    try:
        proto = open_model(model_path).proto
    except ModelLoadError:
        return []
    found = []
    for tensor in _get_all_tensors(proto):
        for entry in tensor.external_data:
            if entry.key == "location":
                found.append((tensor.name, Path(model_path).parent / entry.value))
    return found


STDIN_NAME = "<stdin>"


def read_model_from_stdin() -> bytes:
    """The serialized ONNX model on stdin ('-' as the model path), named `<stdin>` in errors."""
    from ..importer.loading import NamedBytes

    if sys.stdin is None or sys.stdin.isatty():
        raise OnnxTorchMlirError(f"{STDIN_NAME}: '-' reads the model from stdin, which is a terminal; "
                                 "pipe or redirect the .onnx file into it")
    data = sys.stdin.buffer.read()
    if not data:
        raise OnnxTorchMlirError(f"{STDIN_NAME}: empty, not an ONNX model")
    _refuse_external_data(data)
    return NamedBytes(data, STDIN_NAME)


def _refuse_external_data(data: bytes) -> None:
    """A model on stdin has no directory, so its external data cannot be found: say so first."""
    import onnx
    from google.protobuf.message import DecodeError
    from onnx.external_data_helper import _get_all_tensors

    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError:
        return  # the importer says what is wrong with it
    for tensor in _get_all_tensors(model):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            location = next((entry.value for entry in tensor.external_data if entry.key == "location"), "?")
            raise OnnxTorchMlirError(
                f"{STDIN_NAME}: initializer '{tensor.name}' keeps its data in the external file '{location}', "
                "which a model read from stdin cannot find; give the model's path instead of '-'"
            )


def model_argument(args):
    """What the importer takes for the `model` argument: the path, or the bytes read from stdin."""
    return getattr(args, "model_bytes", None) if args.model == "-" else args.model


# Above this much MLIR text, `--emit-bytecode` is suggested: weights print in hex, so 100 MB of
# constants are 200 MB of text, which MLIR then parses back far slower than bytecode's raw bytes.
LARGE_TEXT_BYTES = 200 * 2**20


def write_module_text(stream, module, *, print_locations: bool = False, streamed: bool = False,
                      generic: bool = False) -> None:
    """`module` as MLIR text on `stream`; a one-line warning suggests --emit-bytecode when it is large.

    `streamed`: printed in pieces, never as one string (slower, but the text of an imported model
    can be as large as the model); its size is then known only on a file, not on a pipe."""
    if not streamed:
        text = module.operation.get_asm(enable_debug_info=print_locations, print_generic_op_form=generic)
        stream.write(text)
        warn_if_large_text(len(text))
        return
    start = _position(stream)
    module.operation.print(file=stream, enable_debug_info=print_locations, print_generic_op_form=generic)
    end = _position(stream)
    if start is not None and end is not None:
        warn_if_large_text(end - start)


def _position(stream) -> int | None:
    try:
        return stream.tell()
    except (OSError, ValueError):
        return None


def warn_if_large_text(size: int) -> None:
    if size > LARGE_TEXT_BYTES:
        warnings.warn(OnnxTorchMlirWarning(
            f"wrote {size / 2**20:.0f} MB of MLIR text, mostly weights printed in hex; --emit-bytecode writes "
            "them as raw bytes (half the size, and much faster to read back)"
        ), stacklevel=2)
