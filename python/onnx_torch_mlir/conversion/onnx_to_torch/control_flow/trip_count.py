"""The number of iterations of a Loop whose condition only counts, found at conversion time.

TF's while_loop reaches ONNX (tf2onnx: every Keras RNN with a mask, `tf.while_loop` in general)
as a Loop without a trip count: the initial condition is `0 < n` and the body yields
`i + 1 < n`, where `i` is a loop-carried counter and `n` a loop-carried value the body passes on
unchanged (tf2onnx compares both as floats after Casts). PyTorch's scripted `while i < n` loops
have the same shape. When the condition is a function of the iteration number, of loop-carried
values that are themselves functions of those and of literals, and of literals only, and the
initial values involved are literals (a length fixed with `--dim` folds to one), the loop runs a
number of iterations known at conversion time: the pattern then treats it as a for-like loop of
that trip count (TOSA and StableHLO unroll it, or write its scan outputs in place).

The count is found by running that part of the body, the condition and the carried values it
reads, on numpy scalars, one iteration after another: no pattern to match per producer. Only
small integer, boolean and float scalar ops are run (`_EVALUATORS`), in the operands' own type as
a backend would; any other op, a value from outside that is not a literal, or more than `limit`
iterations gives None (the loop stays a while loop).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..node import NUMPY_DTYPES, literal_value
from ..types import tensor_info
from .regions import UNREALIZED_CAST, terminator, to_original_type, to_torch

# A scalar chain, never data: a value with more elements is not evaluated.
_MAX_ELEMENTS = 16


class _NotCounting(Exception):
    """The condition depends on something this module does not evaluate."""


def _owner(value: ir.Value):
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) else None


def _dtype(value: ir.Value):
    info = tensor_info(value.type)
    if info is None or info.element not in NUMPY_DTYPES:
        raise _NotCounting
    return NUMPY_DTYPES[info.element]


def _alpha(function):
    def evaluate(op, operands):
        x, y = operands[0], operands[1]
        if len(operands) > 2 and operands[2] not in (1, None):
            y = y * operands[2]
        return function(x, y)

    return evaluate


_EVALUATORS = {
    "torch.aten.add.Tensor": _alpha(np.add),
    "torch.aten.add.Scalar": _alpha(np.add),
    "torch.aten.sub.Tensor": _alpha(np.subtract),
    "torch.aten.sub.Scalar": _alpha(np.subtract),
    "torch.aten.mul.Tensor": lambda op, v: np.multiply(v[0], v[1]),
    "torch.aten.mul.Scalar": lambda op, v: np.multiply(v[0], v[1]),
    "torch.aten.lt.Tensor": lambda op, v: np.less(v[0], v[1]),
    "torch.aten.lt.Scalar": lambda op, v: np.less(v[0], v[1]),
    "torch.aten.le.Tensor": lambda op, v: np.less_equal(v[0], v[1]),
    "torch.aten.le.Scalar": lambda op, v: np.less_equal(v[0], v[1]),
    "torch.aten.gt.Tensor": lambda op, v: np.greater(v[0], v[1]),
    "torch.aten.gt.Scalar": lambda op, v: np.greater(v[0], v[1]),
    "torch.aten.ge.Tensor": lambda op, v: np.greater_equal(v[0], v[1]),
    "torch.aten.ge.Scalar": lambda op, v: np.greater_equal(v[0], v[1]),
    "torch.aten.eq.Tensor": lambda op, v: np.equal(v[0], v[1]),
    "torch.aten.eq.Scalar": lambda op, v: np.equal(v[0], v[1]),
    "torch.aten.ne.Tensor": lambda op, v: np.not_equal(v[0], v[1]),
    "torch.aten.ne.Scalar": lambda op, v: np.not_equal(v[0], v[1]),
    "torch.aten.logical_and": lambda op, v: np.logical_and(v[0], v[1]),
    "torch.aten.logical_or": lambda op, v: np.logical_or(v[0], v[1]),
    "torch.aten.logical_xor": lambda op, v: np.logical_xor(v[0], v[1]),
    "torch.aten.logical_not": lambda op, v: np.logical_not(v[0]),
    "torch.aten.bitwise_not": lambda op, v: np.invert(v[0]),
    "torch.aten.minimum": lambda op, v: np.minimum(v[0], v[1]),
    "torch.aten.maximum": lambda op, v: np.maximum(v[0], v[1]),
    "torch.aten.where.self": lambda op, v: np.where(v[0], v[1], v[2]),
    "torch.aten.to.dtype": lambda op, v: v[0],  # the result's dtype is applied below
    "torch.aten.reshape": lambda op, v: v[0],  # reshapes of a scalar: the result's shape below
    "torch.aten.view": lambda op, v: v[0],
    "torch.aten.squeeze.dim": lambda op, v: v[0],
    "torch.aten.squeeze": lambda op, v: v[0],
    "torch.aten.unsqueeze": lambda op, v: v[0],
    "torch.tensor_static_info_cast": lambda op, v: v[0],
    UNREALIZED_CAST: lambda op, v: v[0],
}


class _Evaluator:
    """The values of a block's ops, on numpy, for one iteration's arguments."""

    def __init__(self, block: ir.Block, arguments: dict):
        self.block, self.values = block, dict(arguments)

    def value(self, value: ir.Value):
        if value in self.values:
            return self.values[value]
        if isinstance(value, ir.BlockArgument):
            raise _NotCounting  # an argument the count does not follow, or an enclosing block's
        owner = _owner(value)
        if owner is None:
            raise _NotCounting
        result = self._evaluate(owner, value)
        self.values[value] = result
        return result

    def _evaluate(self, owner: ir.Operation, value: ir.Value):
        name = owner.name
        if name == "torch.vtensor.literal":
            array = literal_value(value)
            if array is None or array.size > _MAX_ELEMENTS:
                raise _NotCounting
            return array
        if name == "torch.constant.int":
            return ir.IntegerAttr(owner.attributes["value"]).value
        if name == "torch.constant.float":
            return ir.FloatAttr(owner.attributes["value"]).value
        if name == "torch.constant.bool":
            return ir.BoolAttr(owner.attributes["value"]).value
        if name == "torch.constant.none":
            return None
        evaluate = _EVALUATORS.get(name)
        if evaluate is None or len(owner.regions) or len(owner.results) != 1:
            raise _NotCounting
        operands = [self.value(operand) for operand in owner.operands]
        for operand in operands:
            if isinstance(operand, np.ndarray) and operand.size > _MAX_ELEMENTS:
                raise _NotCounting
        with np.errstate(all="ignore"):
            result = evaluate(owner, operands)
        info = tensor_info(value.type)
        if info is None or info.sizes is None or None in info.sizes:
            raise _NotCounting
        result = np.asarray(result).astype(_dtype(value))
        if result.size != int(np.prod(info.sizes, dtype=np.int64)):
            raise _NotCounting
        return result.reshape(info.sizes)


def counted_iterations(block: ir.Block, inits, initial_condition: bool | None, trip_count, limit: int) -> int | None:
    """How many times the Loop whose body is `block` runs, when the condition it yields only
    counts (see the module); None when that is not known at conversion time or over `limit`.

    `inits`: the loop-carried initial values (torch values); `initial_condition`: the Loop's
    condition input as a literal (None: absent, or not a literal: then nothing is known);
    `trip_count`: the trip count as an int, None when absent (a run-time one: nothing known)."""
    if initial_condition is None or (trip_count is not None and not isinstance(trip_count, int)):
        return None
    carried = list(block.arguments[2:])
    yielded = list(terminator(block).operands)
    if len(yielded) < 1 + len(carried) or len(inits) != len(carried):
        return None
    try:
        followed = _followed_arguments(block, carried, yielded)
        state = {}
        for argument in followed:
            array = literal_value(inits[carried.index(argument)])
            if array is None or array.size > _MAX_ELEMENTS:
                return None
            state[argument] = array
        iterations, keep_going = 0, initial_condition
        while keep_going and (trip_count is None or iterations < trip_count):
            if iterations >= limit:
                return None
            evaluator = _Evaluator(block, {block.arguments[0]: np.array(iterations, np.int64),
                                           block.arguments[1]: np.array(True), **state})
            keep_going = bool(np.asarray(evaluator.value(yielded[0])).reshape(-1)[0])
            state = {argument: evaluator.value(yielded[1 + carried.index(argument)]) for argument in followed}
            iterations += 1
        return iterations
    except _NotCounting:
        return None


def _followed_arguments(block: ir.Block, carried: list, yielded: list) -> list:
    """The loop-carried arguments the condition depends on, and those their next values depend
    on, in block order; raises _NotCounting when the dependence passes through a nested region."""
    followed: set = set()
    pending = [yielded[0]]
    seen: set = set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, ir.BlockArgument):
            if value in carried and value not in followed:
                followed.add(value)
                pending.append(yielded[1 + carried.index(value)])
            continue
        owner = _owner(value)
        if owner is None:
            raise _NotCounting
        if owner.name not in _EVALUATORS:
            continue  # a literal or constant, or an op the evaluation will refuse
        pending.extend(owner.operands)
    return [argument for argument in carried if argument in followed]


# Ops a counting condition is compared through: they keep a one-element value's number.
_PASSING = ("torch.aten.to.dtype", "torch.aten.reshape", "torch.aten.view", "torch.aten.squeeze.dim",
            "torch.aten.squeeze", "torch.aten.unsqueeze", "torch.tensor_static_info_cast", UNREALIZED_CAST)
_LESS = {"torch.aten.lt.Tensor": False, "torch.aten.gt.Tensor": True}  # True: the operands are swapped


def _passed_through(value: ir.Value) -> ir.Value:
    """`value` with the pass-through ops in front of it skipped (a bool cast to bool, a reshape)."""
    while True:
        owner = _owner(value)
        if owner is None or owner.name not in _PASSING:
            return value
        if owner.name == "torch.aten.to.dtype" and not str(owner.operands[0].type).endswith(",i1>"):
            return value
        value = owner.operands[0]


def _reached_arguments(value: ir.Value, block: ir.Block) -> set:
    """The block arguments `value` depends on through the scalar ops of `_EVALUATORS`; raises
    _NotCounting through any other op of the block."""
    reached, pending, seen = set(), [value], set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, ir.BlockArgument):
            if value.owner == block:
                reached.add(value)
            continue
        owner = _owner(value)
        if owner is None:
            raise _NotCounting
        if owner.name in ("torch.vtensor.literal", "torch.constant.int", "torch.constant.float",
                          "torch.constant.bool", "torch.constant.none"):
            continue
        if owner.name not in _EVALUATORS or len(owner.regions):
            raise _NotCounting
        pending.extend(owner.operands)
    return reached


def run_time_iterations(b, block: ir.Block, inits, initial_condition: ir.Value | None,
                        trip_count) -> ir.Value | None:
    """The number of iterations of a Loop whose condition counts to a bound only known at run time
    (tf2onnx's `i + 1 < n` with `n` a sequence length), as a [] si64 tensor computed before the
    loop; None for any other condition.

    The condition the body yields must be `a < n` (or `n > a`), where `a` is a function of
    loop-carried values that start from literals (evaluated on numpy as in `counted_iterations`)
    that grows by exactly 1 per iteration, and `n` a function of loop-carried values the body
    passes on unchanged (computed before the loop from their initial values). Iteration 0 runs
    when the initial condition holds, iteration j > 0 when a of iteration j - 1, a0 + j - 1, is
    below n: the count is `initial ? 1 + max(0, ceil(n - a0)) : 0`, at most `trip_count` (an int
    or None)."""
    if trip_count is not None and not isinstance(trip_count, int):
        return None
    carried = list(block.arguments[2:])
    yielded = list(terminator(block).operands)
    if len(yielded) < 1 + len(carried) or len(inits) != len(carried):
        return None
    comparison = _owner(_passed_through(yielded[0]))
    if comparison is None or comparison.name not in _LESS:
        return None
    counter, bound = comparison.operands[0], comparison.operands[1]
    if _LESS[comparison.name]:
        counter, bound = bound, counter
    unchanged = {argument for argument, value in zip(carried, yielded[1:]) if _passed_through(value) == argument}
    try:
        bound_arguments = _reached_arguments(bound, block)
        if not bound_arguments or not bound_arguments <= unchanged or block.arguments[0] in bound_arguments:
            return None
        followed = _followed_arguments(block, carried, [counter, *yielded[1:]])
        if set(followed) & bound_arguments:
            return None
        state = {}
        for argument in followed:
            array = literal_value(inits[carried.index(argument)])
            if array is None or array.size > _MAX_ELEMENTS:
                return None
            state[argument] = array
        values = []
        for iteration in range(3):
            evaluator = _Evaluator(block, {block.arguments[0]: np.array(iteration, np.int64),
                                           block.arguments[1]: np.array(True), **state})
            values.append(np.asarray(evaluator.value(counter)).reshape(-1))
            state = {argument: evaluator.value(yielded[1 + carried.index(argument)]) for argument in followed}
    except _NotCounting:
        return None
    if any(value.size != 1 for value in values):
        return None
    first = float(values[0][0])
    if not np.isfinite(first) or first != round(first) or any(float(values[j][0]) != first + j for j in (1, 2)):
        return None
    bound_value = _computed_before(b, block, bound, {argument: inits[carried.index(argument)] for argument in bound_arguments})
    return _count(b, bound_value, int(first), initial_condition, trip_count)


def _computed_before(b, block: ir.Block, value: ir.Value, initial: dict) -> ir.Value:
    """A copy, in front of the node, of the scalar ops computing `value` in `block`, its block
    arguments bound to their `initial` values (torch values)."""
    mapping = {argument: to_original_type(b, init, argument.type) for argument, init in initial.items()}

    def copy(value: ir.Value) -> ir.Value:
        if value in mapping:
            return mapping[value]
        owner = _owner(value)
        if owner is None or owner.block != block:
            return value
        operands = [copy(operand) for operand in owner.operands]
        clone = owner.clone(ip=ir.InsertionPoint(b.anchor))
        for index, operand in enumerate(operands):
            clone.operands[index] = operand
        for old, new in zip(owner.results, clone.results):
            mapping[old] = new
        return mapping[value]

    return to_torch(b, copy(value))


def _count(b, bound: ir.Value, first: int, initial_condition: ir.Value | None, trip_count) -> ir.Value:
    """`initial ? 1 + max(0, ceil(bound - first)) : 0` (at most `trip_count`) as a [] si64 tensor."""
    info = b.info(bound)
    if info.rank:
        bound = b.reshape(bound, [], [])
    if info.is_float:
        bound = b.unary("aten.ceil", b.to_dtype(bound, "f64"))
    scalar = b.tensor_type([], "si64")
    bound = b.to_dtype(bound, "si64")
    count = b.op("aten.sub.Scalar", scalar, bound, b.constant_int(first - 1), b.constant_int(1))
    count = b.op("aten.maximum", scalar, count, b.scalar_tensor_literal(1, "si64"))
    if trip_count is not None:
        count = b.op("aten.minimum", scalar, count, b.scalar_tensor_literal(trip_count, "si64"))
    if initial_condition is not None:
        flag = b.to_dtype(initial_condition, "i1")
        if b.info(flag).rank:
            flag = b.reshape(flag, [], [])
        count = b.op("aten.where.ScalarOther", scalar, flag, count, b.constant_int(0))
    return count
