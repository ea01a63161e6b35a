"""Comparing a program's outputs with a case's expected outputs.

The rules of ONNX's backend runner, made strict: the number of outputs, every
shape and every dtype must match; floating and complex values must agree within
`rtol`/`atol` (|actual - expected| <= atol + rtol * |expected|), NaN equal to
NaN and infinities equal when of the same sign; everything else exactly.
"""

import numpy as np


def mismatch(expected: list, actual: list, rtol: float, atol: float) -> str | None:
    """None when `actual` matches `expected`, else a one-line reason."""
    if len(expected) != len(actual):
        return f"expected {len(expected)} outputs, got {len(actual)}"
    for index, (want, got) in enumerate(zip(expected, actual)):
        reason = _tensor_mismatch(np.asarray(want), np.asarray(got), rtol, atol)
        if reason:
            return f"output {index}: {reason}"
    return None


def _tensor_mismatch(want: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> str | None:
    if want.dtype != got.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if want.shape != got.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "fc" or want.dtype.name in ("bfloat16",) or want.dtype.name.startswith("float8"):
        want_wide, got_wide = _widen(want), _widen(got)
        close = np.isclose(got_wide, want_wide, rtol=rtol, atol=atol, equal_nan=True)
        wrong = np.count_nonzero(~close)
        if wrong:
            nan_mismatches = np.count_nonzero(np.isnan(got_wide) != np.isnan(want_wide))
            errors = np.abs(np.where(close, 0, got_wide - want_wide))
            worst = np.nanmax(errors) if not np.all(np.isnan(errors)) else float("nan")
            detail = f"max abs error {worst:.3g}" + (f", {nan_mismatches} NaN where a number was expected or the reverse" if nan_mismatches else "")
            return f"{wrong} of {want.size} values differ beyond rtol={rtol} atol={atol} ({detail})"
        return None
    wrong = np.count_nonzero(want != got)
    if wrong:
        return f"{wrong} of {want.size} values differ"
    return None


def _widen(array: np.ndarray) -> np.ndarray:
    """float16/bfloat16/float8 to float64 (complex stays complex) for the comparison."""
    if array.dtype.kind == "c":
        return array.astype(np.complex128)
    return array.astype(np.float64)
