"""`verify`'s comparison of one output with onnxruntime's, saying by how much they differ.

An output without a quantization step (quantization_steps.py) matches when every value is within
rtol/atol (|ours - theirs| <= atol + rtol * |theirs|). One with a step matches when every value is
within one step (an integer output: one unit) plus onnxruntime's own spread on that output (the
largest difference between its optimized and unoptimized runs on the same inputs: one-step
flips early in a deep network grow, and onnxruntime differs from itself by 3 steps on the zoo's
QDQ ResNet-50's logits), and, when it is a score vector (float, last dim > 1), when our top class
in each row scores, in onnxruntime's output, within that allowed difference of its top score
(quantized scores tie often). --rtol/--atol given on the command line replace the step. Every line says the
largest absolute and relative difference, and in steps where there is one.
"""

from __future__ import annotations

import numpy as np

from ..conformance.compare import mismatch

DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-5


def compare_output(want, got, step: tuple | None, rtol: float | None, atol: float | None) -> tuple[bool, str]:
    """(match, text): text is `ok`, `match within 1 quantization step (...)` or `MISMATCH ...`."""
    want, got = np.asarray(want), np.asarray(got)
    override = rtol is not None or atol is not None
    rtol = DEFAULT_RTOL if rtol is None else rtol
    atol = DEFAULT_ATOL if atol is None else atol
    if want.dtype != got.dtype or want.shape != got.shape or not _numeric(want):
        reason = mismatch([want], [got], rtol, atol)  # dtype, shape; bool, complex and strings exactly
        return (True, "ok") if reason is None else (False, "MISMATCH " + reason.removeprefix("output 0: "))
    theirs, ours = want.astype(np.float64), got.astype(np.float64)
    difference = np.abs(ours - theirs)
    same_nan = np.isnan(ours) & np.isnan(theirs)
    same_infinity = np.isinf(ours) & (ours == theirs)
    difference = np.where(same_nan | same_infinity, 0.0, difference)
    difference = np.where(np.isnan(difference), np.inf, difference)
    scale, integer, spread = step if step is not None else (None, False, 0.0)
    if integer and want.dtype.kind in "iu":
        scale = 1.0  # an integer output of a quantized op: one unit
    allowed = None if scale is None else scale + spread
    if scale is not None and not override:
        wrong = difference > allowed * (1 + 1e-6) + DEFAULT_ATOL
        rule = f"1 quantization step ({_step_name(scale, integer and want.dtype.kind in 'iu')})"
        if spread:
            rule += f" plus onnxruntime's own spread ({spread:.3g}, {_steps(spread / scale)})"
    elif want.dtype.kind in "iu" and not override:
        wrong = difference != 0
        rule = None
    else:
        wrong = difference > atol + rtol * np.abs(theirs)
        rule = f"rtol={rtol:g} atol={atol:g}"
    magnitudes = _magnitudes(difference, theirs, scale)
    top = _top_class(theirs, ours, allowed) if scale is not None and want.dtype.kind not in "iu" else None
    count = int(np.count_nonzero(wrong))
    if count:
        beyond = f" beyond {rule}" if rule else ""
        text = f"MISMATCH {count} of {want.size} values differ{beyond}: {magnitudes}"
        if top is not None and not top[0]:
            text += f"; {top[1]}"
        return False, text
    if top is not None and not top[0]:
        return False, f"MISMATCH {top[1]} (values within {rule}: {magnitudes})"
    if scale is None or override:
        return True, "ok" if scale is None else f"ok within {rule}: {magnitudes}"
    text = f"match within {rule}: {magnitudes}"
    return True, text + (f", {top[1]}" if top is not None else "")


def _steps(count: float) -> str:
    text = f"{count:.3g}"
    return f"{text} step" if text == "1" else f"{text} steps"


def _numeric(array: np.ndarray) -> bool:
    return array.dtype.kind in "fiu" or array.dtype.name == "bfloat16" or array.dtype.name.startswith("float8")


def _step_name(scale: float, integer_units: bool) -> str:
    return "one integer unit" if integer_units else f"scale {scale:.3g}"


def _magnitudes(difference: np.ndarray, theirs: np.ndarray, scale: float | None) -> str:
    if difference.size == 0:
        return "max abs 0"
    worst = float(difference.max())
    nonzero = (theirs != 0) & (difference > 0)  # relative to onnxruntime's value, where it is not 0
    relative = float((difference[nonzero] / np.abs(theirs[nonzero])).max()) if np.any(nonzero) else 0.0
    text = f"max abs {worst:.3g}, max rel {relative:.3g}"
    if scale:
        text += f", {_steps(worst / scale)}"
    return text


def _top_class(theirs: np.ndarray, ours: np.ndarray, scale: float) -> tuple[bool, str] | None:
    """Whether our top class in each row scores, in onnxruntime's output, within the allowed
    difference (`scale`) of onnxruntime's top score there."""
    if theirs.ndim == 0 or theirs.shape[-1] < 2 or theirs.size == 0:
        return None
    rows_theirs, rows_ours = theirs.reshape(-1, theirs.shape[-1]), ours.reshape(-1, ours.shape[-1])
    ours_top = np.argmax(rows_ours, axis=-1)
    theirs_top = np.argmax(rows_theirs, axis=-1)
    chosen = rows_theirs[np.arange(len(rows_theirs)), ours_top]
    tied = chosen >= rows_theirs.max(axis=-1) - scale * (1 + 1e-6)
    if np.all(tied):
        same = int(np.count_nonzero(ours_top == theirs_top))
        if same == len(ours_top):
            return True, "top class the same" if len(ours_top) == 1 else f"top class the same in all {len(ours_top)} rows"
        return True, f"top class the same or tied within the allowed difference in all {len(ours_top)} rows"
    row = int(np.argmin(tied))
    return False, (f"top class differs: ours {int(ours_top[row])}, onnxruntime's {int(theirs_top[row])}"
                   + (f" (row {row})" if len(ours_top) > 1 else ""))
