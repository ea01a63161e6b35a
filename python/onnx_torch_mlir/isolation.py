"""Crashes inside MLIR never reach the user bare: the risky work runs in a forked child process.

torch-mlir's and MLIR's passes are C++; on IR they do not expect some of them abort the process
(an LLVM fatal error, an assertion) or fault (SIGSEGV, SIGFPE). Python cannot catch that, and
MLIR's own crash reproducer (`PassManager::enableCrashReproducerGeneration`) is not reachable
from the Python bindings. So the command-line tools fork before any MLIR context exists: the
child does all the work and writes the output itself; the parent only waits (and passes the
child's stderr through). A child that dies of a signal, or exits without saying it finished
(LLVM's `report_fatal_error` calls `exit(1)` on some paths), is reported by the parent as one
line: an internal error naming the pipeline step that was running, exit status 3, and the path
of a reproducer file.

The step: every pipeline step calls `begin_step(name, module, reproduce=...)` before it runs
(mlir_passes.run_passes, pipelines.Step, conversion.passes). The call writes the step's ordinal and name into a
page of shared memory, so the parent knows it after the child's death at no cost to the child.

The reproducer, the input IR of the failing step, costs nothing until a crash: the parent then
forks a second child that replays the same work (compilation is deterministic) and, on
entering the step that crashed, writes the module as MLIR text (with locations, so the ONNX
node names are in it) to the reproducer file and exits. Its first lines say how to run the step
on it with `onnx-mlir-opt`.

Ctrl-C: a compiled program runs as one native call, during which Python does not see SIGINT
(and a KeyboardInterrupt raised in the runner's result callbacks is swallowed by ctypes); such a
call is made `interruptible()`: in the child, SIGINT ends the process at once (nothing is being
written then), and the parent reports "interrupted" with exit status 130, as for a Ctrl-C in
Python code. A SIGINT sent to the parent alone reaches the child too.

Cost: one fork and one pipe per command (measured in docs/robustness.md). The Python API
(`onnx_torch_mlir.compile(..., isolated=True)`) does the same and pays for sending the result
back as bytecode; it raises `InternalCompilerError` instead of dying.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import select
import signal
import sys
import tempfile
import threading
import time

from .errors import InternalCompilerError

_PAGE = 4096
_FINISHED = b"finished"
# Shared page of the current child: "<ordinal>\t<name>\t<how to reproduce>"; the last bytes say
# whether the child finished.
_progress: mmap.mmap | None = None
_ordinal = 0
# In a replay child: (ordinal of the step to dump, reproducer path).
_replay: tuple[int, str] | None = None
REPLAY_WROTE = 0
REPLAY_MISSED = 4
# The exit status of an interrupted command (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130
# How long a SIGINT sent to the parent alone waits before the parent passes it to the child.
_INTERRUPT_GRACE_SECONDS = 0.5


def begin_step(name: str, module=None, *, reproduce: str = "") -> None:
    """Record that pipeline step `name` starts on `module` (an ir.Module or module operation).

    `reproduce` is the onnx-mlir-opt arguments that run the step on its input IR. Cheap when
    not isolated: a counter and, in an isolated child, a write to shared memory.
    """
    global _ordinal
    _ordinal += 1
    if _progress is not None:
        record = f"{_ordinal}\t{name}\t{reproduce}".encode()[: _PAGE - 64]
        _progress[: _PAGE - 64] = record.ljust(_PAGE - 64, b"\0")
    if _replay is not None and _replay[0] == _ordinal:
        _write_reproducer(_replay[1], name, module, reproduce)
        os._exit(REPLAY_WROTE if module is not None else REPLAY_MISSED)


def _write_reproducer(path: str, name: str, module, reproduce: str) -> None:
    if module is None:
        return
    operation = getattr(module, "operation", module)
    with open(path, "w") as stream:
        stream.write(f"// onnx-torch-mlir crash reproducer: pipeline step '{name}' crashed on this IR.\n")
        if reproduce:
            stream.write(f"// Run the step: onnx-mlir-opt {os.path.basename(path)} {reproduce}\n")
        stream.write(operation.get_asm(enable_debug_info=True))


def _read_step(region: mmap.mmap) -> tuple[int, str, str]:
    text = region[: _PAGE - 64].rstrip(b"\0").decode(errors="replace")
    if not text:
        return 0, "", ""
    ordinal, _, rest = text.partition("\t")
    name, _, reproduce = rest.partition("\t")
    return int(ordinal), name, reproduce


def _mark_finished() -> None:
    if _progress is not None:
        _progress[_PAGE - len(_FINISHED) :] = _FINISHED


def _finished(region: mmap.mmap) -> bool:
    return region[_PAGE - len(_FINISHED) :] == _FINISHED


def signal_name(number: int) -> str:
    with contextlib.suppress(ValueError):
        return signal.Signals(number).name
    return f"signal {number}"


class ChildDeath:
    """How an isolated child died: the signal or status, the step it was in, the last stderr line."""

    def __init__(self, how: str, ordinal: int, step: str, reproduce: str, detail: str):
        self.how, self.ordinal, self.step, self.reproduce, self.detail = how, ordinal, step, reproduce, detail

    after_interrupt = False  # the parent had a SIGINT while it waited

    @property
    def interrupted(self) -> bool:
        """Ended by Ctrl-C (during an `interruptible()` native call, or by what it set off): not a crash."""
        return self.after_interrupt or self.how == signal_name(signal.SIGINT)

    def message(self, reproducer: str | None) -> str:
        where = f"in pipeline step '{self.step}'" if self.step else "before the first pipeline step"
        text = f"internal error: the compiler crashed ({self.how}) {where}"
        if self.detail:
            text += f": {self.detail}"
        if reproducer:
            text += f"; reproducer (the step's input IR): {reproducer}"
            if self.reproduce:
                text += f" (onnx-mlir-opt {reproducer} {self.reproduce})"
        elif self.step in ("import", "parse"):
            text += "; the input file is the reproducer"
        return text + "; this is a bug in onnx-torch-mlir or torch-mlir, please report it with the reproducer"


def _fork_child(work, stderr_descriptor: int | None):
    """Fork; the child runs `work()` (an int status) with the progress page set, then exits."""
    global _progress, _ordinal
    region = mmap.mmap(-1, _PAGE)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            HeldInterrupts.release_in_child()
            _progress, _ordinal = region, 0
            if stderr_descriptor is not None:
                os.dup2(stderr_descriptor, 2)
            status = work() or 0
            _mark_finished()
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
            _mark_finished()
        except BaseException:  # the work reports its own errors; anything else is a traceback
            import traceback

            traceback.print_exc()
            status = 3
            _mark_finished()
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(status)
    return pid, region


def _death(wait_status: int, region: mmap.mmap, stderr_tail: str) -> ChildDeath | None:
    """None if the child finished normally, else how it died."""
    if os.WIFEXITED(wait_status) and _finished(region):
        return None
    how = (
        signal_name(os.WTERMSIG(wait_status))
        if os.WIFSIGNALED(wait_status)
        else f"exit status {os.WEXITSTATUS(wait_status)} without finishing"
    )
    ordinal, step, reproduce = _read_step(region)
    return ChildDeath(how, ordinal, step, reproduce, _crash_detail(stderr_tail))


def _crash_detail(stderr_tail: str) -> str:
    """The line of a native crash that says what went wrong (`LLVM ERROR: ...`, an assertion)."""
    for line in reversed(stderr_tail.splitlines()):
        if "LLVM ERROR" in line or "Assertion" in line or "UNREACHABLE" in line:
            return line.strip()[:300]
    return ""


def replay_for_reproducer(work, ordinal: int, directory: str | None = None) -> str | None:
    """Run `work` again in a child that writes the input IR of step `ordinal` and exits; its path."""
    global _replay
    if ordinal <= 0:
        return None
    handle, path = tempfile.mkstemp(prefix="onnx-torch-mlir-crash-", suffix=".mlir", dir=directory)
    os.close(handle)
    null = os.open(os.devnull, os.O_WRONLY)
    previous = _replay
    _replay = (ordinal, path)
    try:
        pid, _ = _fork_child(lambda: _silenced(work, null), null)
    finally:
        _replay = previous
        os.close(null)
    _, wait_status = os.waitpid(pid, 0)
    if os.WIFEXITED(wait_status) and os.WEXITSTATUS(wait_status) == REPLAY_WROTE and os.path.getsize(path):
        return path
    os.unlink(path)
    return None


def _silenced(work, null: int):
    os.dup2(null, 1)
    return work()


def run_isolated(work, *, replayable: bool = True):
    """Run `work()` (returns an exit status) in a forked child; (status, ChildDeath or None).

    The child's stderr passes through this process (its last lines are kept to name a native
    crash); stdout is shared. On a crash the reproducer is made by a replay (see the module
    docstring) when `replayable`. A child that dies after a Ctrl-C (of SIGINT, or of anything
    an interrupt set off, such as an abort in a native module it was loading) was interrupted,
    not a crash: status 130, no replay.
    """
    read_end, write_end = os.pipe()
    with HeldInterrupts() as interrupts:  # from before the fork: a Ctrl-C during it is not lost
        pid, region = _fork_child(work, write_end)
        os.close(write_end)
        tail = _pass_through(read_end, child=pid, interrupts=interrupts)
        _, wait_status = _wait(pid)
    death = _death(wait_status, region, tail)
    if death is None:
        return os.WEXITSTATUS(wait_status), None
    death.after_interrupt = interrupts.first is not None
    if death.interrupted:
        death.reproducer = None
        return INTERRUPTED, death
    death.reproducer = replay_for_reproducer(work, death.ordinal) if replayable else None
    return 3, death


class HeldInterrupts:
    """While this process waits for a child (or loads MLIR), a SIGINT is noted instead of raised.

    A KeyboardInterrupt raised as `os.read` returns would drop the bytes it read (the child's
    own "interrupted" line, most often). One raised while MLIR's native modules initialize
    (torch_mlir._mlir_libs imports Python modules from C++) aborts or faults the process instead
    of unwinding it, so the command line loads them with interrupts held. Only the main thread handles signals, and a SIGINT
    handler other than Python's default is left alone (then the interrupt is raised as usual).
    """

    def __init__(self):
        self.first: float | None = None
        self._installed = False

    def note(self, *_) -> None:
        self.first = self.first or time.monotonic()

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self.note)
            self._installed = True
        return self

    @staticmethod
    def release_in_child() -> None:
        """In a forked child: Ctrl-C raises KeyboardInterrupt again (a parent's holding is inherited)."""
        if isinstance(getattr(signal.getsignal(signal.SIGINT), "__self__", None), HeldInterrupts):
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *_):
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _wait(pid: int):
    while True:
        try:
            return os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except KeyboardInterrupt:
            os.kill(pid, signal.SIGINT)


# How often the parent looks whether a SIGINT it got should be passed to the child.
_POLL_SECONDS = 0.25


def _pass_through(descriptor: int, keep: int = 4096, child: int | None = None, interrupts=None) -> str:
    """Copy everything from `descriptor` to stderr until EOF; the last `keep` bytes as text.

    A Ctrl-C at the terminal reaches the child too; a SIGINT sent to this process alone is passed
    on to `child` if the child has not ended within a moment (passing it at once could interrupt
    the child's own clean-up of the first)."""
    interrupts = interrupts or HeldInterrupts()
    tail = b""
    try:
        while True:
            timeout = None
            if child is not None and interrupts.first is not None:
                timeout = interrupts.first + _INTERRUPT_GRACE_SECONDS - time.monotonic()
                if timeout <= 0:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGINT)
                    child = None
                    continue
            elif child is not None:
                timeout = _POLL_SECONDS
            try:
                if timeout is not None and not select.select([descriptor], [], [], timeout)[0]:
                    continue
                chunk = os.read(descriptor, 65536)
            except KeyboardInterrupt:  # not held (see HeldInterrupts)
                interrupts.note()
                continue
            if not chunk:
                break
            with contextlib.suppress(OSError):
                os.write(2, chunk)
            tail = (tail + chunk)[-keep:]
    finally:
        os.close(descriptor)
    return tail.decode(errors="replace")


@contextlib.contextmanager
def interruptible():
    """Make the native call in the block (a compiled program running) stoppable by Ctrl-C.

    In an isolated child, SIGINT takes its default action during the block: the child ends at
    once and the parent reports it as interrupted. Elsewhere (the Python API) the interrupt is
    held until the call returns and raised then as KeyboardInterrupt, not inside a callback.
    Only the main thread handles signals, and a SIGINT handler other than Python's default is
    left alone.
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    received = []
    signal.signal(signal.SIGINT, signal.SIG_DFL if _progress is not None else lambda *_: received.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if received:
        raise KeyboardInterrupt


def compile_isolated(model, output_type: str = "torch", *, context=None, **options):
    """`onnx_torch_mlir.compile` in a forked child; the module comes back as bytecode.

    A crash of the child raises InternalCompilerError (step, reproducer path); an error the
    child raised is raised again here with its type and message.
    """
    import pickle

    from torch_mlir import ir

    from .mlir_context import make_context

    context = context or make_context()
    handle, result_path = tempfile.mkstemp(prefix="onnx-torch-mlir-result-", suffix=".mlirbc")
    os.close(handle)

    def work() -> int:
        from .compiler import compile as compile_model

        try:
            module = compile_model(model, output_type, **options)
        except Exception as error:  # sent back to the parent and raised there
            with open(result_path, "wb") as stream:
                try:
                    pickle.dump(error, stream)
                except Exception:
                    pickle.dump(RuntimeError(f"{type(error).__name__}: {error}"), stream)
            return 1
        with open(result_path, "wb") as stream:
            module.operation.write_bytecode(stream)
        return 0

    try:
        read_end, write_end = os.pipe()
        with HeldInterrupts() as interrupts:
            pid, region = _fork_child(work, write_end)
            os.close(write_end)
            tail = _pass_through(read_end, child=pid, interrupts=interrupts)
            _, wait_status = _wait(pid)
        death = _death(wait_status, region, tail)
        if interrupts.first is not None and (death is not None or os.WEXITSTATUS(wait_status) != 0):
            raise KeyboardInterrupt
        if death is not None and death.interrupted:
            raise KeyboardInterrupt
        if death is not None:
            reproducer = replay_for_reproducer(work, death.ordinal)
            raise InternalCompilerError(death.message(reproducer), step=death.step, reproducer=reproducer)
        with open(result_path, "rb") as stream:
            data = stream.read()
        if os.WEXITSTATUS(wait_status) != 0:
            raise pickle.loads(data)
        return ir.Module.parse(data, context)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(result_path)
