"""Compiler-runtime functions that JIT-compiled code may call, made available to the JIT.

LLVM lowers some floating-point conversions to calls into the compiler's
runtime library rather than to instructions: on x86-64, `fptrunc double to half`
(`arith.truncf f64 to f16`) becomes a call to `__truncdfhf2`, even with F16C.
The ExecutionEngine resolves calls against the symbols the process exports,
and Python does not load libgcc_s globally, so the call would stay unresolved.

`register(engine)` binds each such function to libgcc_s's implementation when
the library has it (GCC 12 and later), and otherwise to a Python fallback that
converts exactly with numpy (one callback per element: correct, not fast).
"""

import ctypes
import ctypes.util
import struct

import numpy as np

# name -> (ctypes prototype, Python implementation) of the fallbacks.
#
# The half-precision ABI passes and returns a `_Float16` in the low 16 bits of
# an SSE register, as a `float` is; ctypes has no half type, so a fallback
# returns the `float` whose bit pattern is the half's 16 bits (a float32
# subnormal or zero, which converts through Python's double exactly).


def _half_bits_as_float(value: float) -> float:
    with np.errstate(over="ignore"):
        bits = int(np.array(value, np.float64).astype(np.float16).view(np.uint16))
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _bfloat16_bits_as_float(value: float) -> float:
    """float32 -> bfloat16, rounded to nearest even (NaN stays a quiet NaN), returned as the float
    whose bit pattern is the bfloat16's 16 bits, as `__truncsfbf2` returns it."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if (bits & 0x7FFFFFFF) > 0x7F800000:
        half = (bits >> 16) | 0x0040
    else:
        half = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    return struct.unpack("<f", struct.pack("<I", half))[0]


_FALLBACKS = {
    "__truncdfhf2": (ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_double), _half_bits_as_float),
    # float -> bfloat16: an instruction only with AVX512-BF16 or AVX-NE-CONVERT (not on AMD EPYC
    # before Zen 4, say), and libgcc_s has it only from GCC 13.
    "__truncsfbf2": (ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float), _bfloat16_bits_as_float),
}

# Functions taken from libgcc_s when present (they need no fallback on hosts
# whose LLVM lowering emits instructions for them, e.g. F16C for float<->half).
_FROM_LIBGCC = ("__truncdfhf2", "__truncsfhf2", "__extendhfsf2", "__extendhfdf2", "__truncsfbf2")


def _load_libgcc():
    name = ctypes.util.find_library("gcc_s") or "libgcc_s.so.1"
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


_libgcc = _load_libgcc()
# Callbacks must outlive every engine that calls them: keep them for the process.
_fallback_callbacks = {name: prototype(function) for name, (prototype, function) in _FALLBACKS.items()}


def addresses(use_libgcc: bool = True) -> dict[str, int]:
    """The address each runtime function is bound to (libgcc_s's, else the fallback's)."""
    found: dict[str, int] = {}
    for name in _FROM_LIBGCC:
        if use_libgcc and _libgcc is not None and hasattr(_libgcc, name):
            found[name] = ctypes.cast(getattr(_libgcc, name), ctypes.c_void_p).value
    for name, callback in _fallback_callbacks.items():
        found.setdefault(name, ctypes.cast(callback, ctypes.c_void_p).value)
    return found


def register(engine, use_libgcc: bool = True) -> None:
    """Make the runtime functions available to `engine` (before anything is looked up)."""
    for name, address in addresses(use_libgcc).items():
        engine.raw_register_runtime(name, ctypes.c_void_p(address))
