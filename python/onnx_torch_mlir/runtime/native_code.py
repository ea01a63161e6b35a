"""Where a compiled program's machine code lives, and the Python functions that code calls.

The code comes either from MLIR's ExecutionEngine (`JitCode`: compiled in this process) or from a
shared library the program cache built from an earlier compilation's object file (`LoadedLibrary`,
see program_cache.py). Both are given the same table of runtime symbols — the result consumers,
the assertion recorder, compiler-runtime functions and custom-op callbacks, by their linker names —
and both hand out the entry point with the same packed calling convention: `void f(void **args)`.
"""

from __future__ import annotations

import ctypes
import weakref

from onnx_torch_mlir.runtime import assertions, calling_convention, compiler_runtime
from onnx_torch_mlir.runtime.memref import UnrankedMemRef, copy_out_unranked

C_INTERFACE_PREFIX = "_mlir_ciface_"
# The ExecutionEngine adds to every function `f` a wrapper `_mlir_f(void **args)` taking pointers to
# the arguments; the runner calls the C interface's wrapper (raw_lookup prefixes the name).
PACKED_PREFIX = "_mlir_"
EntryFunction = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_ConsumerCallback = ctypes.CFUNCTYPE(None, ctypes.POINTER(UnrankedMemRef))


class RuntimeSymbols:
    """The callbacks a program calls, by linker name, and the state they fill on each call.

    The callbacks must not refer to the CompiledProgram: ctypes callbacks are invisible to the
    garbage collector, and a cycle through them would keep the program (and its code) alive forever.
    """

    def __init__(self, result_dtypes: list, extra: dict[str, int] | None = None):
        self.outputs: list = [None] * len(result_dtypes)
        self.failed_assertions: list[int] = []
        self._callbacks = [_consumer(self.outputs, index, dtype) for index, dtype in enumerate(result_dtypes)]
        self._assertion_recorder = assertions.recorder(self.failed_assertions)
        self.addresses: dict[str, int] = {}
        for index, callback in enumerate(self._callbacks):
            name = C_INTERFACE_PREFIX + calling_convention.RESULT_CONSUMER_PREFIX + str(index)
            self.addresses[name] = ctypes.cast(callback, ctypes.c_void_p).value
        self.addresses[assertions.ASSERTION_CALLBACK] = ctypes.cast(self._assertion_recorder, ctypes.c_void_p).value
        self.addresses.update(compiler_runtime.addresses())
        self.addresses.update(extra or {})


def _consumer(outputs: list, index: int, dtype):
    """The callback for `@otm_consume_result_<index>`: copies the result into `outputs[index]`."""

    def consume(unranked) -> None:
        outputs[index] = copy_out_unranked(unranked.contents, dtype)

    return _ConsumerCallback(consume)


class JitCode:
    """A program in MLIR's ExecutionEngine; LLVM compiles it on the first lookup."""

    from_cache = False

    def __init__(self, engine):
        self.engine = engine

    def bind(self, addresses: dict[str, int]) -> None:
        for name, address in addresses.items():
            self.engine.raw_register_runtime(name, ctypes.c_void_p(address))

    def entry_function(self, entry: str):
        """The C-interface entry point's packed wrapper (compiling the program now), or None if it
        is missing."""
        address = self.engine.raw_lookup(C_INTERFACE_PREFIX + entry)  # looks up PACKED_PREFIX + name
        return EntryFunction(address) if address else None


class LoadedLibrary:
    """A program's shared library built by the program cache, loaded privately into this process.

    Every runtime symbol the library calls is a trampoline jumping through a slot of the array that
    `otm_program_slots()` returns; `bind` fills the slots in the order the library was built with.
    The library is unloaded when this object is collected (the CompiledProgram owning it is gone).
    """

    def __init__(self, path: str, slot_names: list[str], from_cache: bool = True):
        # False: built by split_compilation.py for this compilation rather than read from the cache.
        self.from_cache = from_cache
        self.path = path
        self._library = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        self._slot_names = list(slot_names)
        slots_of = self._library.otm_program_slots
        slots_of.restype = ctypes.POINTER(ctypes.c_void_p)
        self._slots = slots_of()
        weakref.finalize(self, _unload, self._library._handle)

    def missing_symbols(self, addresses: dict[str, int]) -> list[str]:
        return [name for name in self._slot_names if name not in addresses]

    def bind(self, addresses: dict[str, int]) -> None:
        for index, name in enumerate(self._slot_names):
            self._slots[index] = addresses[name]

    def entry_function(self, entry: str):
        try:
            function = getattr(self._library, PACKED_PREFIX + C_INTERFACE_PREFIX + entry)
            address = ctypes.cast(function, ctypes.c_void_p).value
        except AttributeError:
            return None
        return EntryFunction(address)


def _unload(handle: int) -> None:
    import _ctypes

    _ctypes.dlclose(handle)
