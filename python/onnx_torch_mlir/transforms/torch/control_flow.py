"""`torch.prim.If` / `torch.prim.Loop` as StableHLO's or TOSA's own control flow.

torch-mlir lowers `prim.If` and `prim.Loop` only in its Linalg pipeline (`convert-torch-to-scf`).
Its StableHLO and TOSA pipelines have no such step, and their backend-contract verifiers
(`torch-verify-stablehlo-backend-contract`, `torch-verify-tosa-backend-contract`) reject `scf`
(measured on the pinned wheel: an `scf.if` or `scf.while` fails both). So `scf` cannot be left for
the consumers, and the pipelines cannot be extended textually either (their StableHLO pipeline holds
`chlo-legalize-to-stablehlo`, which is not registered under its name). This pass therefore runs on
the Torch backend contract, before the backend pipeline, and replaces each

- `torch.prim.If` by `stablehlo.if` / `tosa.cond_if` on a `tensor<i1>`;
- `torch.prim.Loop` by `stablehlo.while` / `tosa.while_loop` whose carried values are the loop's
  condition (`tensor<i1>`), an iteration counter (`tensor<i64>`, only when the loop reads its
  iteration number or has a trip count other than "unbounded") and the loop's tensors. A for-like
  loop (a trip count and the constant true as its initial condition, torch-mlir's
  `PrimLoopOp::isForLike`, which ignores the condition the body yields) carries no condition:
  its condition region only compares the counter with the trip count. IREE raises that counting
  form (and only it) to an `scf.for`; on an `scf.while` its stream conversion fails when a carried
  tensor's run-time dim is computed in the body from a value outside the loop
  (`recurrent/tensor_loop.py` says more).

The regions keep their Torch ops: values cross the region boundaries through
`torch_c.to_builtin_tensor` / `torch_c.from_builtin_tensor`, and the backend pipeline then converts
the ops inside the new regions as any others (a dialect conversion walks nested regions) and folds
the casts away. Conditions and counters are computed with Torch tensor ops (`aten.lt.Tensor`,
`aten.logical_and`, ...): a `!torch.bool` the conversion made with `aten.Bool.int(aten.item(t))` is
traced back to its tensor `t`, since neither backend lowers `aten.item`. Both consumers (the
reference runner: `tosa-to-scf`, `stablehlo-legalize-to-linalg`; IREE's input conversions) take
these ops; the runner first rewrites StableHLO's as `scf` (`stablehlo_to_scf.py`). Values of any
other type (a carried `!torch.int`, a list) are refused by name.

Three Torch forms inside the new regions that neither backend lowers are rewritten here too: a
`tensor_static_info_cast` becomes a `tensor.cast`, an integer `aten.item` a `tensor.extract`, and
a literal with a zero dim (the empty start of a growing scan output) the backend's constant. A
tensor with a run-time dim that a loop reads from outside is carried (unchanged) instead of
captured, which IREE's stream conversion needs (see `_captured_dynamic_tensors`).
"""

from __future__ import annotations

import re

import numpy as np
from torch_mlir import ir

from ...errors import PipelineError
from ..torch.custom_ops import builtin_tensor_type

INT64_MAX = 2**63 - 1
_VTENSOR = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],(.+)>$")
_OPS = {
    "stablehlo": {"if": "stablehlo.if", "while": "stablehlo.while", "yield": "stablehlo.return"},
    "tosa": {"if": "tosa.cond_if", "while": "tosa.while_loop", "yield": "tosa.yield"},
}


def has_torch_control_flow(module: ir.Module) -> bool:
    return bool(_collect(module.operation, ("torch.prim.If", "torch.prim.Loop")))


def lower_control_flow_for_backend(module, backend: str, load_dialects: bool = True) -> int:
    """Replace every `prim.If` / `prim.Loop` of `module` (an `ir.Module` or its operation),
    innermost first; the count replaced."""
    from ..torch.custom_ops import load_backend_dialects

    root = module.operation
    if load_dialects:
        load_backend_dialects(root.context)  # torch_c, TOSA and StableHLO ops are created below
    found = _collect(root, ("torch.prim.If", "torch.prim.Loop"))
    with root.context, ir.Location.unknown():
        for op in found:
            lowering = _ControlFlow(op, backend)
            if op.name == "torch.prim.If":
                lowering.lower_if()
            else:
                lowering.lower_loop()
        _erase_dead_scalar_ops(root)
        _static_info_casts_as_tensor_casts(root, backend)
        _items_as_extracts(root, backend)
    return len(found)


def _items_as_extracts(root: ir.Operation, backend: str) -> None:
    """Each `aten.item` of an integer tensor in a region of the backend's control flow (a Slice at
    the iteration number of a Loop) as `tensor.extract` of the builtin tensor, bridged with
    `torch_c.from_i64`: neither backend lowers `aten.item`, and the ops reading the number (a
    slice's run-time start) are lowered with `torch_c.to_i64`."""
    holders = _collect(root, tuple(_OPS[backend][kind] for kind in ("if", "while")))
    items = []
    for holder in holders:
        items += _collect(holder, ("torch.aten.item",))
    i64 = ir.IntegerType.get_signless(64)
    for item in dict.fromkeys(items):
        source = item.operands[0]
        if str(item.results[0].type) != "!torch.int" or _element(source) not in ("si64", "si32", "i1"):
            continue
        lowering = _ControlFlow(item, backend)
        tensor = lowering.to_builtin(lowering.zero_d(source, item), item)
        number = lowering.create("tensor.extract", [ir.RankedTensorType(tensor.type).element_type], [tensor],
                                 item).result
        if number.type != i64:
            extend = "arith.extui" if _element(source) == "i1" else "arith.extsi"
            number = lowering.create(extend, [i64], [number], item).result
        item.results[0].replace_all_uses_with(lowering.create("torch_c.from_i64", [item.results[0].type],
                                                              [number], item).result)
        item.erase()


def _static_info_casts_as_tensor_casts(root: ir.Operation, backend: str) -> None:
    """Each `torch.tensor_static_info_cast` in a region of the backend's control flow (a carried
    [?, ?] read as the body's [?, 3]) as a `tensor.cast` between builtin tensors: neither backend
    lowers the Torch cast, which the Linalg path makes a `tensor.cast` too."""
    holders = _collect(root, tuple(_OPS[backend][kind] for kind in ("if", "while")))
    casts = []
    for holder in holders:
        casts += _collect(holder, ("torch.tensor_static_info_cast",))
    for cast in dict.fromkeys(casts):
        lowering = _ControlFlow(cast, backend)
        source = lowering.to_builtin(cast.operands[0], cast)
        target = lowering.builtin_or_fail(cast.results[0].type)
        converted = source if source.type == target else lowering.create("tensor.cast", [target], [source], cast).result
        cast.results[0].replace_all_uses_with(lowering.from_builtin(converted, cast.results[0].type, cast))
        cast.erase()


def _collect(root: ir.Operation, names) -> list[ir.Operation]:
    """Ops named in `names` under `root`, each after the ops nested in it (post-order)."""
    found: list[ir.Operation] = []

    def visit(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in names:
            found.append(operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.POST_ORDER)
    return found


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _rank(value: ir.Value) -> int | None:
    match = _VTENSOR.match(str(value.type))
    return None if not match else len([d for d in match.group(1).split(",") if d.strip()])


def _element(value: ir.Value) -> str | None:
    match = _VTENSOR.match(str(value.type))
    return match.group(2) if match else None


class _ControlFlow:
    """One `prim.If` or `prim.Loop` and the ops that replace it, built in front of it."""

    def __init__(self, op: ir.Operation, backend: str):
        self.op, self.backend, self.names = op, backend, _OPS[backend]
        self.location = op.location

    def fail(self, reason: str):
        raise PipelineError(f"torch-to-{self.backend}: {self.location}: {self.op.name}: {reason}")

    # -- Torch-level helpers (ops created in front of `anchor`) -------------------------------------
    def create(self, name: str, result_types, operands, anchor, attributes=None) -> ir.Operation:
        return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                                   attributes=attributes or {}, loc=self.location, ip=ir.InsertionPoint(anchor))

    def to_builtin(self, value: ir.Value, anchor) -> ir.Value:
        builtin = builtin_tensor_type(value.type)
        if builtin is None:
            self.fail(f"carries a value of type {value.type}: only tensors of a known rank and dtype can cross "
                      f"{self.backend}'s control flow")
        return self.create("torch_c.to_builtin_tensor", [builtin], [value], anchor).result

    def from_builtin(self, value: ir.Value, torch_type: ir.Type, anchor) -> ir.Value:
        return self.create("torch_c.from_builtin_tensor", [torch_type], [value], anchor).result

    def literal(self, array: np.ndarray, torch_type: str, anchor) -> ir.Value:
        attribute = ir.DenseElementsAttr.get(array, type=builtin_tensor_type(ir.Type.parse(torch_type)).element_type)
        return self.create("torch.vtensor.literal", [ir.Type.parse(torch_type)], [], anchor,
                           {"value": attribute}).result

    def scalar_tensor(self, value: ir.Value, anchor) -> ir.Value:
        """A 0-d vtensor (i1 for a `!torch.bool`, si64 for a `!torch.int`) holding scalar `value`."""
        kind = str(value.type)
        owner = _owner(value)
        name = owner.name if owner is not None else None
        if name == "torch.constant.bool":
            flag = ir.BoolAttr(owner.attributes["value"]).value
            return self.literal(np.array(flag, np.bool_), "!torch.vtensor<[],i1>", anchor)
        if name == "torch.constant.int":
            number = ir.IntegerAttr(owner.attributes["value"]).value
            return self.literal(np.array(number, np.int64), "!torch.vtensor<[],si64>", anchor)
        if name == "torch.aten.item" and _element(owner.operands[0]) in ("si64", "i1"):
            return self.zero_d(owner.operands[0], anchor)
        if name == "torch.aten.Bool.int":
            number = self.scalar_tensor(owner.operands[0], anchor)
            if _element(number) == "i1":
                return number
            zero = self.create("torch.constant.int", [ir.Type.parse("!torch.int")], [], anchor,
                               {"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)}).result
            return self.create("torch.aten.ne.Scalar", [ir.Type.parse("!torch.vtensor<[],i1>")], [number, zero],
                               anchor).result
        binary = {"torch.aten.__and__.bool": "torch.aten.logical_and", "torch.aten.lt.int": "torch.aten.lt.Tensor",
                  "torch.aten.eq.int": "torch.aten.eq.Tensor", "torch.aten.add.int": "torch.aten.add.Tensor",
                  "torch.aten.sub.int": "torch.aten.sub.Tensor"}
        if name in binary:
            lhs, rhs = (self.scalar_tensor(operand, anchor) for operand in owner.operands)
            result = "!torch.vtensor<[],si64>" if name in ("torch.aten.add.int", "torch.aten.sub.int") else (
                "!torch.vtensor<[],i1>")
            operands = [lhs, rhs]
            if name in ("torch.aten.add.int", "torch.aten.sub.int"):
                one = self.create("torch.constant.int", [ir.Type.parse("!torch.int")], [], anchor,
                                  {"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)}).result
                operands.append(one)
            return self.create(binary[name], [ir.Type.parse(result)], operands, anchor).result
        if kind in ("!torch.int", "!torch.bool"):
            element = "si64" if kind == "!torch.int" else "i1"
            return self.create("torch.prim.NumToTensor.Scalar", [ir.Type.parse(f"!torch.vtensor<[],{element}>")],
                               [value], anchor).result
        self.fail(f"has a {kind} operand that is not a number")

    def zero_d(self, tensor: ir.Value, anchor) -> ir.Value:
        """A one-element vtensor as a 0-d one."""
        if _rank(tensor) == 0:
            return tensor
        element = _element(tensor)
        reshaped_type = ir.Type.parse(f"!torch.vtensor<[],{element}>")
        empty = self.create("torch.prim.ListConstruct", [ir.Type.parse("!torch.list<int>")], [], anchor).result
        return self.create("torch.aten.reshape", [reshaped_type], [tensor, empty], anchor).result

    def condition(self, value: ir.Value, anchor) -> ir.Value:
        """A `!torch.bool` as a builtin `tensor<i1>` made in front of `anchor`."""
        return self.to_builtin(self.scalar_tensor(value, anchor), anchor)

    # -- prim.If --------------------------------------------------------------------------------------
    def lower_if(self) -> None:
        op = self.op
        condition = self.condition(op.operands[0], op)
        result_types = [self.builtin_or_fail(result.type) for result in op.results]
        new = ir.Operation.create(self.names["if"], results=result_types, operands=[condition], regions=2,
                                  loc=self.location, ip=ir.InsertionPoint(op))
        for index in range(2):
            block = op.regions[index].blocks[0]
            self.retarget_terminator(block)
            block.append_to(new.regions[index])
        self.replace_results(op, new.results)

    def builtin_or_fail(self, torch_type: ir.Type) -> ir.Type:
        builtin = builtin_tensor_type(torch_type)
        if builtin is None:
            self.fail(f"yields a value of type {torch_type}: only tensors of a known rank and dtype can cross "
                      f"{self.backend}'s control flow")
        return builtin

    def yielded(self, value: ir.Value, anchor) -> ir.Value:
        """`value` as the builtin tensor a region yields or a loop starts from. A
        `tensor_static_info_cast` to a less static type (a branch's [2, 3] yielded as the If's
        [?, 3]) becomes a `tensor.cast`, and a literal with a zero dim (the empty start of a
        scan output) the backend's constant: neither backend lowers those two Torch forms."""
        owner = _owner(value)
        if owner is not None and owner.name == "torch.tensor_static_info_cast":
            source = self.yielded(owner.operands[0], anchor)
            target = self.builtin_or_fail(value.type)
            return source if source.type == target else self.create("tensor.cast", [target], [source], anchor).result
        if owner is not None and owner.name == "torch.vtensor.literal":
            builtin = self.builtin_or_fail(value.type)
            if 0 in ir.RankedTensorType(builtin).shape:
                return self.empty_constant(builtin, anchor)
        return self.to_builtin(value, anchor)

    def empty_constant(self, builtin: ir.Type, anchor) -> ir.Value:
        element = ir.RankedTensorType(builtin).element_type
        zero = ir.IntegerAttr.get(element, 0) if isinstance(element, ir.IntegerType) else ir.FloatAttr.get(element, 0.0)
        if self.backend == "tosa":  # a tosa.const cannot be of i64; an empty tensor holds no value anyway
            return self.create("tensor.empty", [builtin], [], anchor).result
        attribute = ir.DenseElementsAttr.get_splat(builtin, zero)
        return self.create("stablehlo.constant", [builtin], [], anchor, {"value": attribute}).result

    def retarget_terminator(self, block: ir.Block, leading=()) -> None:
        """The block's torch terminator becomes the backend's, yielding builtin tensors."""
        terminator = block.operations[len(block.operations) - 1]
        values = [self.yielded(value, terminator) for value in terminator.operands]
        self.create(self.names["yield"], [], [*leading, *values], terminator)
        terminator.erase()

    def replace_results(self, op: ir.Operation, new_results) -> None:
        for old, new in zip(op.results, new_results):
            old.replace_all_uses_with(self.from_builtin(new, old.type, op))
        op.erase()

    # -- prim.Loop ------------------------------------------------------------------------------------
    def lower_loop(self) -> None:
        """`while (i < M and cond) { cond, v = body(i, v); i += 1 }` as the backend's while loop."""
        op = self.op
        trip_count, initial_condition, inits = op.operands[0], op.operands[1], list(op.operands[2:])
        block = op.regions[0].blocks[0]
        iteration = block.arguments[0]
        bounded = not self._is_constant_int(trip_count, INT64_MAX)
        counted = bounded or bool(list(iteration.uses))
        flagged = not (bounded and self._is_constant_true(initial_condition))
        i1, si64 = ir.Type.parse("!torch.vtensor<[],i1>"), ir.Type.parse("!torch.vtensor<[],si64>")
        carried = [self.condition(initial_condition, op)] if flagged else []
        torch_types = [i1] if flagged else []
        if counted:
            carried.append(self.to_builtin(self.literal(np.array(0, np.int64), "!torch.vtensor<[],si64>", op), op))
            torch_types.append(si64)
        carried += [self.yielded(value, op) for value in inits]
        torch_types += [value.type for value in inits]
        captured = _captured_dynamic_tensors(op)
        carried += [self.to_builtin(value, op) for value in captured]
        torch_types += [value.type for value in captured]
        limit = self.scalar_tensor(trip_count, op) if bounded else None
        types = [value.type for value in carried]
        new = ir.Operation.create(self.names["while"], results=types, operands=carried, regions=2,
                                  loc=self.location, ip=ir.InsertionPoint(op))
        self._build_condition_region(new.regions[0], types, torch_types, counted, limit, flagged)
        self._build_body(new.regions[1], block, types, torch_types, counted, captured, flagged)
        leading = int(counted) + int(flagged)
        for old, value in zip(op.results, list(new.results)[leading:]):
            old.replace_all_uses_with(self.from_builtin(value, old.type, op))
        op.erase()

    def _is_constant_int(self, value: ir.Value, number: int) -> bool:
        owner = _owner(value)
        return owner is not None and owner.name == "torch.constant.int" and (
            ir.IntegerAttr(owner.attributes["value"]).value == number)

    def _is_constant_true(self, value: ir.Value) -> bool:
        owner = _owner(value)
        return owner is not None and owner.name == "torch.constant.bool" and ir.BoolAttr(owner.attributes["value"]).value

    def _build_condition_region(self, region, types, torch_types, counted: bool, limit, flagged: bool) -> None:
        block = region.blocks.append(*types, arg_locs=[self.location] * len(types))
        terminator = self.create(self.names["yield"], [], [block.arguments[0]], block)
        if not counted or limit is None:
            return
        i1 = ir.Type.parse("!torch.vtensor<[],i1>")
        counter_index = 1 if flagged else 0
        counter = self.from_builtin(block.arguments[counter_index], torch_types[counter_index], terminator)
        below = self.create("torch.aten.lt.Tensor", [i1], [counter, limit], terminator).result
        if flagged:
            keep = self.from_builtin(block.arguments[0], torch_types[0], terminator)
            below = self.create("torch.aten.logical_and", [i1], [keep, below], terminator).result
        terminator.operands[0] = self.to_builtin(below, terminator)

    def _build_body(self, region, block: ir.Block, types, torch_types, counted: bool, captured,
                    flagged: bool) -> None:
        """The loop's block with builtin arguments (bridged to its torch ones) and the backend's yield;
        the `captured` values (carried last, unchanged) replace their uses inside."""
        first_op = block.operations[0]
        old_arguments = list(block.arguments)
        for new_type in types:
            block.add_argument(new_type, self.location)
        new_arguments = list(block.arguments)[len(old_arguments):]
        leading = int(counted) + int(flagged)
        counter_index = 1 if flagged else 0
        if counted:
            iteration = old_arguments[0]
            if list(iteration.uses):
                counter = self.from_builtin(new_arguments[counter_index], torch_types[counter_index], first_op)
                number = self.create("torch.aten.item", [ir.Type.parse("!torch.int")], [counter], first_op).result
                iteration.replace_all_uses_with(number)
        for old, new, torch_type in zip(old_arguments[1:], new_arguments[leading:], torch_types[leading:]):
            old.replace_all_uses_with(self.from_builtin(new, torch_type, first_op))
        passed = new_arguments[len(new_arguments) - len(captured):] if captured else []
        for value, argument in zip(captured, passed):
            inside = self.from_builtin(argument, value.type, first_op)
            for use in list(value.uses):
                if _is_inside(use.owner, self.op) and use.owner != _owner(inside):
                    use.owner.operands[use.operand_number] = inside
        for _ in old_arguments:
            block.erase_argument(0)
        terminator = block.operations[len(block.operations) - 1]
        values = [self.yielded(value, terminator) for value in list(terminator.operands)[1:]]
        yielded = [self.condition(terminator.operands[0], terminator)] if flagged else []
        if counted:
            counter = self.from_builtin(new_arguments[counter_index], torch_types[counter_index], terminator)
            one = self.create("torch.constant.int", [ir.Type.parse("!torch.int")], [], terminator,
                              {"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)}).result
            following = self.create("torch.aten.add.Scalar", [torch_types[counter_index]], [counter, one, one], terminator).result
            yielded.append(self.to_builtin(following, terminator))
        self.create(self.names["yield"], [], [*yielded, *values, *passed], terminator)
        terminator.erase()
        block.append_to(region)


def _is_inside(operation, container: ir.Operation) -> bool:
    """Whether `operation` is nested (at any depth) in `container`'s regions."""
    operation = operation.operation if hasattr(operation, "operation") else operation
    while operation is not None:
        parent = operation.parent
        if parent is None:
            return False
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent == container:
            return True
        operation = parent
    return False


def _defined_inside(value: ir.Value, container: ir.Operation) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block):
        holder = owner.owner
        holder = holder.operation if hasattr(holder, "operation") else holder
        return holder == container or _is_inside(holder, container)
    return _is_inside(owner, container)


def _captured_dynamic_tensors(loop: ir.Operation) -> list[ir.Value]:
    """The tensors with a run-time dim that ops inside `loop` read from outside it. They are carried
    (unchanged) rather than captured: IREE's stream conversion fails on a while loop that captures a
    dynamically shaped tensor ("failed to legalize unresolved target materialization from ('index')
    to ('!stream.resource<*>', 'index')", measured on an LSTM over a run-time length)."""
    captured: dict = {}

    def visit(operation: ir.Operation) -> ir.WalkResult:
        if operation == loop:
            return ir.WalkResult.ADVANCE
        for operand in operation.operands:
            if "?" in str(operand.type) and str(operand.type).startswith("!torch.vtensor") and (
                    not _defined_inside(operand, loop)):
                captured.setdefault(operand, None)
        return ir.WalkResult.ADVANCE

    loop.walk(visit)
    return list(captured)


_DEAD_SCALAR_OPS = ("torch.aten.Bool.int", "torch.aten.item", "torch.aten.__and__.bool", "torch.aten.lt.int",
                    "torch.aten.eq.int", "torch.aten.add.int", "torch.aten.sub.int", "torch.constant.bool",
                    "torch.constant.int", "torch.prim.ListConstruct", "torch.tensor_static_info_cast",
                    "torch.vtensor.literal")


def _erase_dead_scalar_ops(root: ir.Operation) -> None:
    """Erase the scalar ops the conditions were traced through once nothing uses them (neither
    backend lowers `aten.item`), until none is left."""
    while True:
        dead = [op for op in _collect(root, _DEAD_SCALAR_OPS)
                if all(not list(result.uses) for result in op.results)]
        if not dead:
            return
        for op in dead:
            op.erase()
