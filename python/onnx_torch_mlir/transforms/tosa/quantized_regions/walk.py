"""The walk back from a QuantizeLinear marker through the float TOSA of its region.

Two questions, each answered once per value (a region's values are read by many others):

- `exact(v)`: v as integers (an `Integer`: int8 or int32 with a scale and zero point), built from
  the region's int8 inputs by integer ops that lose nothing (exact_forms.py);
- `requantize(v, scale, zero point)`: v as int8 in that quantization, as QuantizeLinear gives it
  (within one step): the op's own int8 form (requantized_forms.py: clamps, layout ops, sums,
  products; normalizations.py: Softmax and LayerNormalization), else one `tosa.rescale` of its
  exact form, else a `tosa.table` of an elementwise function of one int8 tensor (tables.py).

None where the walk does not know the computation: that region keeps its float form.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ...torch.rewriting import defining_op
from . import exact_forms, normalizations, requantized_forms, tables
from .integers import Integer, IntegerBuilder, per_last_dim, quantized, shape, static
from .markers import parameters, quantize_marker_reading, signed


class Walk:
    """`exact` and `requantize` of the module docstring, each value's answer kept."""

    def __init__(self, approximations: bool = True):
        """`approximations`: also Softmax and LayerNormalization in integer arithmetic (normalizations.py),
        which are within a step of the float computation but not exact."""
        self.exact_forms: dict = {}
        self.requantized: dict = {}
        self.handler_tables = ((normalizations.HANDLERS, requantized_forms.HANDLERS) if approximations
                               else (requantized_forms.HANDLERS,))

    def exact(self, value: ir.Value) -> Integer | None:
        if value not in self.exact_forms:
            self.exact_forms[value] = None  # while in progress: a cycle through _quantized_elsewhere
            op = defining_op(value)
            form = None
            if op is not None and static(value.type):
                handler = exact_forms.HANDLERS.get(op.name)
                form = handler(self, op) if handler else None
                if form is None:
                    form = self._quantized_elsewhere(value)
            self.exact_forms[value] = form
        return self.exact_forms[value]

    def _quantized_elsewhere(self, value: ir.Value) -> Integer | None:
        """A float value the walk has no exact form of, which a per-tensor QuantizeLinear marker also
        reads, as that marker's integers: off the float value by at most half that marker's step. A
        QOperator model reduces a HardSwish's float output (ReduceMean) while its QLinearMul reads the
        quantized one; an integer graph has only the latter."""
        for user in quantize_marker_reading(value):
            if not static(user.results[0].type):
                continue
            marker_parameters = signed(parameters(user))
            if marker_parameters["axis"] is not None:
                continue
            scale, zero_point = marker_parameters["scale"][0], marker_parameters["zero_point"][0]
            integer = self.requantize(value, scale, zero_point)
            if integer is not None:
                return Integer(integer, None, np.full([1] * len(shape(value)), scale), zero_point, 8)
        return None

    def requantize(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        """`value` (float) as int8 of `scale` and `zero_point`, as QuantizeLinear gives it (within
        one step); None where the walk does not know the computation."""
        key = (value, scale, zero_point)
        if key not in self.requantized:
            op = defining_op(value)
            result = None
            if op is not None and static(value.type):
                for handlers in self.handler_tables:
                    handler = handlers.get(op.name)
                    result = handler(self, op, scale, zero_point) if handler else None
                    if result is not None:
                        break
                if result is None:
                    result = self._rescaled(value, scale, zero_point)
                if result is None:
                    result = self.looked_up(value, scale, zero_point)
            self.requantized[key] = result
        return self.requantized[key]

    def looked_up(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        return tables.looked_up(self, value, scale, zero_point)

    def _rescaled(self, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
        form = self.exact(value)
        if form is None:
            return None
        op = defining_op(value)
        b = IntegerBuilder(op, op.location)
        if form.array is not None:
            return b.constant(quantized(form.real(), scale, zero_point), 8)
        factors = per_last_dim(np.broadcast_to(form.scale, shape(value)) / scale)
        if factors is None:
            return None
        if form.bits == 8 and factors.size == 1 and factors[0] == 1.0 and form.zero_point == zero_point:
            return form.value
        return b.rescale(form.value, factors, form.zero_point, zero_point, 8)
