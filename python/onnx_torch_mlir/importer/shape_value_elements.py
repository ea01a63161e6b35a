"""The elements of shape values (`shape_values`) and the arithmetic on them.

An element is an int (known), a bool, a str (a named non-negative dim: the same
name is the same size), None (unknown), or a numpy float scalar (a known float,
kept in its own precision: np.float32 arithmetic is float32 arithmetic).

Floats are there because exporters compute some sizes in floating point and cast
the result: `int(x.shape[1] / 2)` is `Cast(Div(Cast(Gather(Shape(x)), float), 2.0), int64)`.
A chain of constants only is also typed by the fold of `constant_folding`; the
shape values follow one that starts from a dim known only after their own
refinement rounds (an Expand to `[batch, 32]`, then its width halved). A size left
`?` that torch-mlir later finds static is worse than a missing optimization: in
transformers' Funnel the Range of positions was `[?]`, torch-mlir's canonicalization
made it 16, and its Linalg lowering of the Einsums' permutes then built an invalid
`linalg.transpose` (static result dim over a `?` input dim). Floats are only ever
known values: a named dim cast to a float is unknown.
"""

from __future__ import annotations

import operator

import numpy as np

_UNKNOWN = None


def is_int(element) -> bool:
    return isinstance(element, (int, np.integer)) and not isinstance(element, (bool, np.bool_))


def is_dim(element) -> bool:
    return isinstance(element, str)


def is_float(element) -> bool:
    return isinstance(element, np.floating)


def _floats(function):
    """`function` applied to two known floats of the same precision, in that precision."""

    def apply(x, y):
        if not (is_float(x) and is_float(y)) or x.dtype != y.dtype:
            return _UNKNOWN
        with np.errstate(all="ignore"):  # inf and nan are IEEE results like any other
            result = function(x, y)
        return result if isinstance(result, (bool, np.bool_)) else x.dtype.type(result)

    return apply


def add(x, y):
    if is_int(x) and is_int(y):
        return int(x) + int(y)
    if is_float(x) or is_float(y):
        return _floats(operator.add)(x, y)
    if y == 0 and not isinstance(y, bool):
        return x
    if x == 0 and not isinstance(x, bool):
        return y
    return _UNKNOWN


def sub(x, y):
    if is_int(x) and is_int(y):
        return int(x) - int(y)
    if is_float(x) or is_float(y):
        return _floats(operator.sub)(x, y)
    if is_int(y) and y == 0:
        return x
    if is_dim(x) and x == y:
        return 0
    return _UNKNOWN


def mul(x, y):
    if is_int(x) and is_int(y):
        return int(x) * int(y)
    if is_float(x) or is_float(y):
        return _floats(operator.mul)(x, y)
    if (is_int(x) and x == 0) or (is_int(y) and y == 0):
        return 0
    if is_int(y) and y == 1:
        return x
    if is_int(x) and x == 1:
        return y
    return _UNKNOWN


def div(x, y):
    if is_int(x) and is_int(y) and y != 0:
        quotient = abs(int(x)) // abs(int(y))  # ONNX integer Div truncates toward zero
        return quotient if (x >= 0) == (y > 0) else -quotient
    if is_float(x) or is_float(y):
        return _floats(operator.truediv)(x, y)
    if is_int(y) and y == 1:
        return x
    if is_dim(x) and x == y:
        return 1
    return _UNKNOWN


def compare(x, y, function):
    """A comparison, using that a named dim is >= 0."""
    if is_int(x) and is_int(y):
        return bool(function(int(x), int(y)))
    if is_float(x) or is_float(y):
        result = _floats(function)(x, y)
        return _UNKNOWN if result is _UNKNOWN else bool(result)
    if is_dim(x) and is_dim(y) and x == y:
        return bool(function(0, 0))
    if is_dim(x) and is_int(y) and y < 0:
        return bool(function(0, -1))  # x >= 0 > y
    if is_int(x) and is_dim(y) and x < 0:
        return bool(function(-1, 0))
    return _UNKNOWN


def maximum(x, y):
    if is_int(x) and is_int(y):
        return max(int(x), int(y))
    if is_float(x) or is_float(y):
        return _floats(np.maximum)(x, y)  # both propagate nan
    if is_dim(x) and (x == y or (is_int(y) and y <= 0)):
        return x
    if is_dim(y) and is_int(x) and x <= 0:
        return y
    return _UNKNOWN


def minimum(x, y):
    if is_int(x) and is_int(y):
        return min(int(x), int(y))
    if is_float(x) or is_float(y):
        return _floats(np.minimum)(x, y)
    if is_dim(x) and x == y:
        return x
    if is_dim(x) and is_int(y) and y <= 0:
        return int(y)
    if is_dim(y) and is_int(x) and x <= 0:
        return int(x)
    return _UNKNOWN


def negate(x):
    if is_int(x):
        return -int(x)
    return -x if is_float(x) else _UNKNOWN


def _rounding(function):
    """Ceil, Floor or Round of a known float, in its precision; an int is its own rounding."""

    def apply(x):
        if is_int(x):
            return x
        return function(x) if is_float(x) else _UNKNOWN

    return apply


UNARY = {"Neg": negate, "Ceil": _rounding(np.ceil), "Floor": _rounding(np.floor), "Round": _rounding(np.round)}


def logical(function):
    def apply(x, y):
        if isinstance(x, (bool, np.bool_)) and isinstance(y, (bool, np.bool_)):
            return bool(function(bool(x), bool(y)))
        return _UNKNOWN

    return apply


def cast_to_int(x):
    """ONNX Cast to an integer type: a float truncates toward zero; an out-of-range one is unknown."""
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if is_float(x):
        return int(x) if np.isfinite(x) and abs(x) < 2.0**63 else _UNKNOWN
    return x


def cast_to_float(x, dtype):
    """ONNX Cast to a float type: known numbers only (a named dim is not followed into floats)."""
    if isinstance(x, (bool, np.bool_)) or is_int(x) or is_float(x):
        with np.errstate(all="ignore"):  # too large for float16: inf, as ONNX's Cast
            return np.dtype(dtype).type(x)
    return _UNKNOWN


def cast_to_bool(x):
    if is_int(x) or isinstance(x, (bool, np.bool_)) or is_float(x):
        return bool(x)
    return _UNKNOWN


BINARY = {
    "Add": add, "Sub": sub, "Mul": mul, "Div": div, "Max": maximum, "Min": minimum,
    "Equal": lambda x, y: compare(x, y, operator.eq),
    "Less": lambda x, y: compare(x, y, operator.lt),
    "LessOrEqual": lambda x, y: compare(x, y, operator.le),
    "Greater": lambda x, y: compare(x, y, operator.gt),
    "GreaterOrEqual": lambda x, y: compare(x, y, operator.ge),
    "And": logical(operator.and_), "Or": logical(operator.or_), "Xor": logical(operator.xor),
}
