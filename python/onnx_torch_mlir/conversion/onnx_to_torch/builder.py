"""`TorchBuilder`: creates torch ops in front of the ONNX node being converted.

Every op gets the node's location, so anything torch-mlir later says about it
points back at the ONNX node. Ops are created by name
(`b.op("aten.add.Tensor", result_type, x, y, alpha)`) rather than through the
generated per-op builders: one calling convention for all ~1700 torch ops, and
the name in a pattern is exactly the name in the FileCheck test.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from torch_mlir import ir

from .types import FLOAT_ELEMENTS, TensorInfo, tensor_info, torch_dtype_code, vtensor_type

INT64_MAX = 2**63 - 1


class TorchBuilder:
    """Builds torch ops and constants before `anchor` (the ONNX op), at `location`."""

    def __init__(self, anchor: ir.Operation, location: ir.Location):
        self.anchor = anchor
        self.location = location
        self.context = anchor.context
        self._types: dict[str, ir.Type] = {}

    # -- types ------------------------------------------------------------------
    def type(self, spelling: str) -> ir.Type:
        """A type from its spelling (`!torch.int`, `!torch.list<int>`), cached."""
        cached = self._types.get(spelling)
        if cached is None:
            cached = self._types[spelling] = ir.Type.parse(spelling, self.context)
        return cached

    def tensor_type(self, sizes: Sequence | None, element: str) -> ir.Type:
        """`!torch.vtensor<[sizes], element>`; a size None is `?`, sizes None is unranked."""
        return vtensor_type(TensorInfo(None if sizes is None else tuple(sizes), element), self.context)

    @staticmethod
    def info(value_or_type) -> TensorInfo | None:
        """Shape and element type of a value or type."""
        return tensor_info(value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type)

    # -- ops --------------------------------------------------------------------
    def op(self, name: str, result_types, *operands: ir.Value, attributes: dict | None = None):
        """Create `torch.<name>`; returns its result, the results list, or the op if it has none.

        `result_types` is one type, a list of types, or None/[] for no results.
        """
        if result_types is None:
            result_types = []
        single = isinstance(result_types, ir.Type)
        created = ir.Operation.create(
            f"torch.{name}" if not name.startswith(("torch.", "builtin.")) else name,
            results=[result_types] if single else list(result_types),
            operands=list(operands),
            attributes=attributes or {},
            loc=self.location,
            ip=ir.InsertionPoint(self.anchor),
        )
        if single:
            return created.result
        return list(created.results) if created.results else created

    # -- compositions with computed result types -------------------------------
    def type_like(self, x: ir.Value) -> ir.Type:
        """The tensor type of `x`."""
        info = self.info(x)
        return self.tensor_type(info.sizes, info.element)

    def binary(self, torch_op: str, x: ir.Value, y: ir.Value, result_type: ir.Type | None = None) -> ir.Value:
        """`aten.add/sub.Tensor` (with alpha 1) or `aten.mul/div.Tensor`, numpy-broadcast result type."""
        result_type = result_type or self.broadcast_type(x, y)
        if torch_op in ("aten.add.Tensor", "aten.sub.Tensor"):
            return self.op(torch_op, result_type, x, y, self.constant_int(1))
        return self.op(torch_op, result_type, x, y)

    def arith(self, name: str, x: ir.Value, y) -> ir.Value:
        """`aten.<name>` (add, sub, mul, div) of tensor x and y: a tensor (numpy broadcasting), a
        `!torch` scalar value or a Python number."""
        if isinstance(y, ir.Value) and str(y.type).startswith("!torch.vtensor"):
            return self.binary(f"aten.{name}.Tensor", x, y)
        scalar = y if isinstance(y, ir.Value) else self.constant_float(float(y))
        alpha = [self.constant_int(1)] if name in ("add", "sub") else []
        return self.op(f"aten.{name}.Scalar", self.type_like(x), x, scalar, *alpha)

    def scalar_op(self, torch_op: str, x: ir.Value, scalar: float, result_type: ir.Type | None = None) -> ir.Value:
        """`aten.{add,sub}.Scalar` (alpha 1), `aten.{mul,div,pow}.Tensor_Scalar`-like ops with a float."""
        result_type = result_type or self.type_like(x)
        value = self.constant_float(scalar)
        if torch_op in ("aten.add.Scalar", "aten.sub.Scalar"):
            return self.op(torch_op, result_type, x, value, self.constant_int(1))
        return self.op(torch_op, result_type, x, value)

    def unary(self, torch_op: str, x: ir.Value) -> ir.Value:
        """A same-shape, same-type unary op (`aten.sqrt`, `aten.abs`, ...)."""
        return self.op(torch_op, x.type, x)

    def negate(self, x: ir.Value, result_type: ir.Type | None = None) -> ir.Value:
        """-x. An integer is subtracted from zero: torch-mlir's Linalg lowering of an integer
        `aten.neg` goes through f32 (wrong beyond 2^24), and TOSA's negate saturates the most
        negative value, where ONNX wraps."""
        if self.info(x).element in FLOAT_ELEMENTS:
            return self.op("aten.neg", result_type or x.type, x)
        zero = self.scalar_tensor_literal(0, self.info(x).element)
        return self.binary("aten.sub.Tensor", zero, x, result_type or x.type)

    def cast_to(self, value: ir.Value, result_type: ir.Type) -> ir.Value:
        """`value` retyped to `result_type` (same element type; sizes more or less static)."""
        if value.type == result_type:
            return value
        return self.op("tensor_static_info_cast", result_type, value)

    def unsqueeze_trailing(self, x: ir.Value, count: int) -> ir.Value:
        """Append `count` size-1 dims: a per-channel [C] vector becomes [C, 1, ..., 1]."""
        for _ in range(count):
            x = self.unsqueeze(x, -1)
        return x

    def reduced_type(self, x: ir.Value, dims: Sequence[int], keepdim: bool, element: str | None = None) -> ir.Type:
        """The type of `x` reduced over `dims` (kept as size 1 with keepdim, else dropped)."""
        info = self.info(x)
        dims = {d + info.rank if d < 0 else d for d in dims}
        if keepdim:
            sizes = [1 if i in dims else s for i, s in enumerate(info.sizes)]
        else:
            sizes = [s for i, s in enumerate(info.sizes) if i not in dims]
        return self.tensor_type(sizes, element or info.element)

    def reduce_mean(self, x: ir.Value, dims: list[int], keepdim: bool = True) -> ir.Value:
        rank = self.info(x).rank
        dims = [d + rank if d < 0 else d for d in dims]
        return self.op(
            "aten.mean.dim", self.reduced_type(x, dims, keepdim), x, self.int_list(dims),
            self.constant_bool(keepdim), self.constant_none(),
        )

    def pad_spatial(self, x: ir.Value, begins: list, ends: list, value: float) -> ir.Value:
        """`aten.constant_pad_nd` of the trailing len(begins) dims of x (negative pads crop); the
        pads are dims (run-time ones: SAME auto_pad on a dynamic size)."""
        if all(self.static_dim(pad) == 0 for pad in list(begins) + list(ends)):
            return x
        info = self.info(x)
        count = len(begins)
        pad = []
        for i in reversed(range(count)):  # torch lists the last dim first
            pad += [begins[i], ends[i]]
        sizes = list(info.sizes)
        for i in range(count):
            dim = info.rank - count + i
            sizes[dim] = self.static_dim(self.dim_add(self.dim_add(sizes[dim], begins[i]), ends[i])) \
                if None not in (sizes[dim], self.static_dim(begins[i]), self.static_dim(ends[i])) else None
        return self.op(
            "aten.constant_pad_nd", self.tensor_type(sizes, info.element), x, self.int_list(pad),
            self.constant_float(value),
        )

    def slice_dim(self, x: ir.Value, dim: int, start: int, end_from_back: int) -> ir.Value:
        """x[start : size - end_from_back] along `dim` (both >= 0)."""
        if start == 0 and end_from_back == 0:
            return x
        info = self.info(x)
        sizes = list(info.sizes)
        if sizes[dim] is not None:
            sizes[dim] = max(sizes[dim] - start - end_from_back, 0)
        end = -end_from_back if end_from_back else INT64_MAX
        return self.op(
            "aten.slice.Tensor", self.tensor_type(sizes, info.element), x, self.constant_int(dim),
            self.constant_int(start), self.constant_int(end), self.constant_int(1),
        )

    def slice_range(self, x: ir.Value, dim: int, start: int, end: int) -> ir.Value:
        """x[start:end] along `dim` (non-negative bounds)."""
        info = self.info(x)
        sizes = list(info.sizes)
        sizes[dim] = end - start
        return self.op(
            "aten.slice.Tensor", self.tensor_type(sizes, info.element), x, self.constant_int(dim),
            self.constant_int(start), self.constant_int(end), self.constant_int(1),
        )

    # -- constants --------------------------------------------------------------
    def constant_int(self, value: int) -> ir.Value:
        attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, self.context), int(value))
        return self.op("constant.int", self.type("!torch.int"), attributes={"value": attribute})

    def constant_float(self, value: float) -> ir.Value:
        attribute = ir.FloatAttr.get(ir.F64Type.get(self.context), float(value))
        return self.op("constant.float", self.type("!torch.float"), attributes={"value": attribute})

    def constant_bool(self, value: bool) -> ir.Value:
        attribute = ir.BoolAttr.get(bool(value), self.context)
        return self.op("constant.bool", self.type("!torch.bool"), attributes={"value": attribute})

    def constant_none(self) -> ir.Value:
        return self.op("constant.none", self.type("!torch.none"))

    def constant_string(self, value: str) -> ir.Value:
        attribute = ir.StringAttr.get(value, self.context)
        return self.op("constant.str", self.type("!torch.str"), attributes={"value": attribute})

    def constant_scalar(self, value, element: str) -> ir.Value:
        """A `!torch.float` for float element types, else a `!torch.int` (bools as 0/1)."""
        if TensorInfo((), element).is_float:
            return self.constant_float(value)
        return self.constant_int(int(value))

    def dtype(self, element: str) -> ir.Value:
        """The torch ScalarType code of `element` (f32 -> 6) as a `!torch.int`."""
        return self.constant_int(torch_dtype_code(element))

    def int_list(self, values: Sequence) -> ir.Value:
        """`!torch.list<int>` of dims: ints (constants) or `!torch.int` values."""
        return self.list([self.dim_value(v) for v in values], "!torch.int")

    def list(self, values: Sequence[ir.Value], element_type: str) -> ir.Value:
        """`torch.prim.ListConstruct` of `values`; element_type is e.g. `!torch.int` or `!torch.vtensor`."""
        list_type = self.type(f"!torch.list<{element_type.removeprefix('!torch.')}>")
        return self.op("prim.ListConstruct", list_type, *values)

    def tensor_list(self, values: Sequence[ir.Value]) -> ir.Value:
        return self.list(values, "vtensor")

    # -- dims: a size is a Python int when known at conversion time, else a `!torch.int` value --
    # Arithmetic on dims folds when both sides are ints, so static models get constant lists
    # and dynamic ones get scalar torch ops (`aten.add.int`, ...). Sizes lists (`reshape`,
    # `full`, `int_list`, `arange`) take dims directly.
    def dim(self, value: ir.Value, index: int):
        """Dim `index` of a ranked `value`: its size if static, else `aten.size.int`."""
        size = self.info(value).sizes[index]
        if size is not None:
            return size
        return self.op("aten.size.int", self.type("!torch.int"), value, self.constant_int(index))

    def dims(self, value: ir.Value) -> list:
        """Every dim of a ranked `value` (see `dim`)."""
        return [self.dim(value, index) for index in range(self.info(value).rank)]

    def dim_value(self, dim) -> ir.Value:
        """A dim as a `!torch.int` value (a constant for an int)."""
        return dim if isinstance(dim, ir.Value) else self.constant_int(dim)

    @staticmethod
    def static_dim(dim) -> int | None:
        """A dim's size if known at conversion time, else None (the `?` of a result type)."""
        return None if isinstance(dim, ir.Value) else int(dim)

    def _dim_arithmetic(self, name: str, lhs, rhs, fold) -> int | ir.Value:
        if not isinstance(lhs, ir.Value) and not isinstance(rhs, ir.Value):
            return fold(int(lhs), int(rhs))
        return self.op(f"aten.{name}", self.type("!torch.int"), self.dim_value(lhs), self.dim_value(rhs))

    def dim_add(self, lhs, rhs):
        return self._dim_arithmetic("add.int", lhs, rhs, lambda x, y: x + y)

    def dim_sub(self, lhs, rhs):
        return self._dim_arithmetic("sub.int", lhs, rhs, lambda x, y: x - y)

    def dim_mul(self, lhs, rhs):
        return self._dim_arithmetic("mul.int", lhs, rhs, lambda x, y: x * y)

    def dim_floordiv(self, lhs, rhs):
        return self._dim_arithmetic("floordiv.int", lhs, rhs, lambda x, y: x // y)

    def dim_product(self, dims: Sequence):
        """The product of `dims` (1 for none)."""
        if not dims:
            return 1
        result = dims[0]
        for dim in dims[1:]:
            result = self.dim_mul(result, dim)
        return result

    def _dim_comparison(self, name: str, lhs, rhs, fold) -> int | ir.Value:
        if not isinstance(lhs, ir.Value) and not isinstance(rhs, ir.Value):
            return int(fold(int(lhs), int(rhs)))
        condition = self.op(f"aten.{name}", self.type("!torch.bool"), self.dim_value(lhs), self.dim_value(rhs))
        return self.op("aten.Int.bool", self.type("!torch.int"), condition)

    def dim_eq(self, lhs, rhs):
        """1 if lhs == rhs else 0, as a dim (so that it can scale another dim)."""
        return self._dim_comparison("eq.int", lhs, rhs, lambda x, y: x == y)

    def dim_lt(self, lhs, rhs):
        """1 if lhs < rhs else 0, as a dim."""
        return self._dim_comparison("lt.int", lhs, rhs, lambda x, y: x < y)

    def check_at_run_time(self, ok: ir.Value, message: str) -> None:
        """Fail the program with `message` unless the 0-d boolean tensor `ok` holds:
        `torch.runtime.assert` of `aten.Bool.int(aten.item(ok))`. Linalg lowers it as it is; on
        StableHLO, which has no assertion op, `transforms/stablehlo/run_time_checks.py` carries a
        check of this form through torch-mlir's lowering as a `cf.assert` (the route drops every
        other assert)."""
        condition = self.op("aten.Bool.int", self.type("!torch.bool"), self.item(ok))
        self.op("torch.runtime.assert", None, condition, attributes={"message": ir.StringAttr.get(message)})

    def item(self, tensor: ir.Value) -> ir.Value:
        """`aten.item` of a one-element tensor: a `!torch.float` for float elements, else a `!torch.int`.

        TOSA and StableHLO cannot lower `aten.item`: a pattern reads a number at run time only
        where no compile-time form (a literal, the declared result type) exists."""
        info = self.info(tensor)
        if info.rank:
            tensor = self.reshape(tensor, [], [])
        return self.op("aten.item", self.type("!torch.float" if info.is_float else "!torch.int"), tensor)

    # -- shapes -----------------------------------------------------------------
    def reshape(self, x: ir.Value, sizes: Sequence, result_sizes: Sequence | None = None) -> ir.Value:
        """`aten.reshape` of `x` to `sizes` (ints or `!torch.int` values; one may be -1).

        The result type has `result_sizes` if given, else the static ints of `sizes`
        (a value or -1 is `?`). torch-mlir's Linalg lowering of a reshape guesses which
        input dims each result dim collapses or expands, and with several dynamic
        input dims it guesses wrong ([?,?] to [?,1] reads the wrong elements, [?,?,?,4]
        to [-1,4] became [dim0, rest]); from 1-D the grouping is unambiguous, so such
        an input is flattened first. Every family reshapes through here.
        """
        info = self.info(x)
        if result_sizes is None:
            result_sizes = [None if isinstance(size, ir.Value) or size < 0 else int(size) for size in sizes]
        result_sizes = list(result_sizes)
        if info.sizes is not None and list(info.sizes) == result_sizes and None not in result_sizes:
            return x
        if info.sizes is not None and sum(size is None for size in info.sizes) >= 2 and len(result_sizes) != 1:
            x = self.flatten(x)
        return self.op("aten.reshape", self.tensor_type(result_sizes, info.element), x, self.int_list(sizes))

    def arange(self, end, static_end: int | None = None, element: str = "si64") -> ir.Value:
        """[0, end) of `element` (`end` an int or a `!torch.int`; `static_end` its value if known)."""
        if not isinstance(end, ir.Value):
            static_end, end = int(end), self.constant_int(end)
        none = self.constant_none()
        return self.op("aten.arange", self.tensor_type([static_end], element), end, self.dtype(element), none, none, none)

    def full(self, sizes: Sequence, fill, element: str) -> ir.Value:
        """`aten.full` of `sizes` (ints or `!torch.int` values) filled with the number `fill`."""
        none = self.constant_none()
        static = [self.static_dim(size) for size in sizes]
        return self.op(
            "aten.full", self.tensor_type(static, element), self.int_list(sizes),
            self.constant_scalar(fill, element), self.dtype(element), none, none, none,
        )

    def flatten(self, x: ir.Value) -> ir.Value:
        """`x` as a 1-D tensor (`aten.flatten.using_ints` over every dim: unambiguous in every lowering)."""
        info = self.info(x)
        if info.rank == 1:
            return x
        count = None if info.sizes is None or None in info.sizes else int(np.prod(info.sizes, dtype=np.int64))
        if info.rank == 0:
            return self.op("aten.reshape", self.tensor_type([1], info.element), x, self.int_list([1]))
        return self.op(
            "aten.flatten.using_ints", self.tensor_type([count], info.element), x, self.constant_int(0),
            self.constant_int(-1),
        )

    def broadcast_type(self, lhs: ir.Value, rhs: ir.Value, element: str | None = None) -> ir.Type:
        """The type numpy broadcasting gives `lhs` op `rhs` (element of lhs unless given)."""
        left, right = self.info(lhs), self.info(rhs)
        element = element or left.element
        return self.tensor_type(broadcast_sizes(left.sizes, right.sizes), element)

    # -- common compositions ----------------------------------------------------
    def unsqueeze(self, value: ir.Value, dim: int) -> ir.Value:
        """`aten.unsqueeze` with the result type computed from the operand's type."""
        info = self.info(value)
        sizes = list(info.sizes)
        sizes.insert(dim if dim >= 0 else len(sizes) + dim + 1, 1)
        return self.op("aten.unsqueeze", self.tensor_type(sizes, info.element), value, self.constant_int(dim))

    def unsigned_widened(self, value: ir.Value, element: str) -> ir.Value:
        """An unsigned integer tensor as the wider signed `element`, every value kept: TOSA's cast
        sign-extends, so the bits above the unsigned type are masked off."""
        bits = int(self.info(value).element[2:])
        widened = self.to_dtype(value, element)
        return self.op("aten.bitwise_and.Scalar", widened.type, widened, self.constant_int((1 << bits) - 1))

    def to_dtype(self, value: ir.Value, element: str) -> ir.Value:
        """`aten.to.dtype` to `element` (no-op if already of that element type)."""
        info = self.info(value)
        if info.element == element:
            return value
        false, none = self.constant_bool(False), self.constant_none()
        return self.op(
            "aten.to.dtype", self.tensor_type(info.sizes, element), value, self.dtype(element), false, false, none
        )

    def literal(self, array: np.ndarray, element: str) -> ir.Value:
        """A dense `torch.vtensor.literal` holding `array` as element type `element` (si64, f32, i1, ...)."""
        if array.ndim == 0:
            return self.scalar_tensor_literal(array.item(), element)
        array = np.ascontiguousarray(array)
        attribute = ir.DenseElementsAttr.get(array, type=self.type(element), shape=list(array.shape))
        return self.op("vtensor.literal", self.tensor_type(array.shape, element), attributes={"value": attribute})

    def dims_tensor(self, dims: Sequence, rank: int = 1) -> ir.Value:
        """A 1-D si64 tensor of dims: a literal when all are ints, else `aten.tensor` of their list,
        which `OnnxNode.dim_elements` reads back as dims (no `aten.item`). Rank 0: the one dim as
        a 0-d tensor (`prim.NumToTensor`)."""
        if rank == 0:
            (dim,) = dims
            if isinstance(dim, int):
                return self.literal(np.array(dim, dtype=np.int64), "si64")
            return self.op("prim.NumToTensor.Scalar", self.tensor_type([], "si64"), dim)
        if all(isinstance(dim, int) for dim in dims):
            return self.literal(np.array(dims, dtype=np.int64).reshape(len(dims)), "si64")
        none, false = self.constant_none(), self.constant_bool(False)
        result = self.tensor_type([len(dims)], "si64")
        return self.op("aten.tensor", result, self.int_list(dims), self.dtype("si64"), none, false)

    def scalar_tensor_literal(self, value, element: str) -> ir.Value:
        """A rank-0 `torch.vtensor.literal` holding `value`."""
        if TensorInfo((), element).is_float:
            element_type = ir.Type.parse(element, self.context)
            attribute = ir.DenseElementsAttr.get_splat(
                ir.RankedTensorType.get([], element_type), ir.FloatAttr.get(element_type, float(value))
            )
        else:
            width = int(element.lstrip("suib") or 1) if element != "i1" else 1
            if element == "i1":
                element_type = ir.IntegerType.get_signless(1, self.context)
            elif element.startswith("ui"):
                element_type = ir.IntegerType.get_unsigned(width, self.context)
            else:
                element_type = ir.IntegerType.get_signed(width, self.context)
            attribute = ir.DenseElementsAttr.get_splat(
                ir.RankedTensorType.get([], element_type), ir.IntegerAttr.get(element_type, int(value))
            )
        return self.op("vtensor.literal", self.tensor_type([], element), attributes={"value": attribute})


def same_pads(b: TorchBuilder | None, size, effective: int, stride: int, upper: bool) -> tuple:
    """(begin, end) of auto_pad SAME_UPPER (`upper`) or SAME_LOWER on a dim of `size` (a dim: with
    a run-time size, `b` builds the pads as `!torch.int`s) for a window `effective` long.

    The output has ceil(size / stride) positions, the last starting at size - 1 - (size - 1) mod
    stride, so the total padding is effective - ((size - 1) mod stride + 1), at least 0; SAME_UPPER
    puts the odd element at the end."""
    if not isinstance(size, ir.Value):
        total = max(effective - ((size - 1) % stride + 1), 0)
        small, large = total // 2, total - total // 2
    else:
        before_last = b.dim_sub(size, 1)
        remainder = b.dim_sub(before_last, b.dim_mul(b.dim_floordiv(before_last, stride), stride))
        total = b.dim_sub(effective - 1, remainder)
        if effective < stride:  # the remainder can exceed effective - 1: clamp at 0
            total = b.dim_mul(total, b.dim_lt(0, total))
        small = b.dim_floordiv(total, 2)
        large = b.dim_sub(total, small)
    return (small, large) if upper else (large, small)


def broadcast_sizes(left, right):
    """numpy broadcasting of two size tuples (None = dynamic); None if either is unranked."""
    if left is None or right is None:
        return None
    rank = max(len(left), len(right))
    left = (1,) * (rank - len(left)) + tuple(left)
    right = (1,) * (rank - len(right)) + tuple(right)
    sizes = []
    for a, b in zip(left, right):
        if a == 1:
            sizes.append(b)
        elif b == 1 or a == b:
            sizes.append(a)
        elif a is None or b is None:
            sizes.append(a if b is None else b)
        else:
            sizes.append(None)
    return sizes
