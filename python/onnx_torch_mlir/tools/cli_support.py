"""What every command-line tool shares: one-line errors, exit codes, safe output files."""

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from ..errors import OnnxTorchMlirError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line, not a usage dump."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def fail(prog: str, message: str, status: int = EXIT_ERROR) -> int:
    first_line = str(message).strip().splitlines()[0] if str(message).strip() else "unknown error"
    print(f"{prog}: error: {first_line}", file=sys.stderr)
    return status


def run_guarded(prog: str, action, *args) -> int:
    """Run `action(*args)`; user-facing errors become one line on stderr and exit 1."""
    try:
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
