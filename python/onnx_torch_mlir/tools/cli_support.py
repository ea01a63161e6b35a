"""What every command-line tool shares: one-line errors, exit codes, safe output files."""

import argparse
import contextlib
import os
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
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "wb" if binary else "w") as stream:
            yield stream
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
