"""Gradient (domain `ai.onnx.preview.training`, version 1): reverse-mode differentiation of the
ONNX nodes between the tensors named in `xs` and the tensor named `y`.

The node names its graph instead of taking it as operands: `xs` and `zs` name the independent
tensors (differentiated, and not), `y` the tensor differentiated, and the node's inputs are the
values of xs then zs at which the gradient is taken. Its outputs are dY/dX_i for each X_i of xs,
with the seed dY = ones of y's shape (so dY/dX_i = sum over the elements of y of their derivative
by X_i), as the ONNX reference and onnxruntime compute it.

The pattern reads the graph through `node.graph()` (the importer names the tensors of a graph
holding a Gradient; the Gradient is converted before the other nodes, so they are still ONNX):

1. finds y and the nodes on a path from xs to y (those whose result depends on some x; zs and
   the tensors not computed from xs are constants of the differentiation);
2. walks them in reverse topological order from the seed, applying one vector-Jacobian rule
   per op type (RULES), summing the gradients of a value used several times, and summing a
   broadcast operand's gradient back to its shape;
3. gives each x its accumulated gradient, or zeros when y does not depend on it.

The forward values the rules need (Mul's other operand, Sigmoid's input) are the graph's own
values: the gradient is taken at the inputs only when each input is the tensor its name
names. An input that is another value (the spec's "gradient at H_1") would need the forward
graph evaluated again at it and fails, as does a node on the path with no rule or with several
outputs. Dynamic dims work: a dynamic dim that may or may not have been broadcast is summed
back by a split that is right either way (`sum_to_shape`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder, broadcast_sizes
from .node import OnnxNode
from .registry import converts

TRAINING = "ai.onnx.preview.training"
FLOAT_ELEMENTS = ("f16", "bf16", "f32", "f64")


@converts("Gradient", since=1, domain=TRAINING)
def gradient(node: OnnxNode, b: TorchBuilder):
    """dY/dX_i for each X_i of xs, by reverse-mode differentiation of the nodes from xs to y."""
    xs, zs, y = node.attr_strings("xs"), node.attr_strings("zs", None) or [], node.attr_string("y")
    graph = node.graph()
    if node.num_inputs != len(xs) + len(zs):
        node.fail(f"has {node.num_inputs} inputs for {len(xs)} names in 'xs' and {len(zs)} in 'zs'")
    leaves = [_named_input(node, graph, index, name) for index, name in enumerate(xs + zs)]
    for index, name in enumerate(xs):
        element = node.input_info(index).element
        if element not in FLOAT_ELEMENTS:
            node.fail(f"x '{name}' has element type {element}: only float tensors are differentiated")
    target = graph.tensor(y)
    if target is None:
        node.fail(_not_found(y, "y"))
    path = _path_nodes(node, graph, target, leaves[: len(xs)], leaves[len(xs):])
    gradients = _backpropagate(node, graph, b, path, target)
    results = []
    for index, leaf in enumerate(leaves[: len(xs)]):
        value = node.input(index)
        found = gradients.get(leaf)
        if found is None:  # y does not depend on this x
            found = b.full(b.dims(value), 0.0, b.info(value).element)
        results.append(b.cast_to(found, node.result_type(index)) if node.result_is_used(index) else None)
    return results


def _not_found(name: str, what: str) -> str:
    return (f"{what} names tensor '{name}', which is not in the graph (only this project's importer keeps the "
            "names of tensors a Gradient reads; import the model with it)")


def _named_input(node: OnnxNode, graph, index: int, name: str) -> ir.Value:
    """The graph value named `name`, which must be input `index` itself."""
    named = graph.tensor(name)
    if named is None:
        node.fail(_not_found(name, f"input {index}"))
    if named != node.op.operands[index]:
        node.fail(f"input {index} is not the tensor '{name}' it stands for: the gradient at other values "
                  "than the graph's own would need the graph evaluated again, which is not supported")
    return named


class _PathNode:
    """A node on a path from xs to y: its view, its operands (raw ONNX values) and which of them
    depend on xs."""

    def __init__(self, view: OnnxNode, operands: list, depends: list):
        self.view, self.operands, self.depends = view, operands, depends


def _path_nodes(node: OnnxNode, graph, target: ir.Value, xs: list, zs: list) -> list[_PathNode]:
    """The nodes whose result depends on some x and reaches y, in topological order (operands first)."""
    depends = {z: False for z in zs}
    depends.update({x: True for x in xs})
    leaves = set(depends)
    ordered: list[_PathNode] = []
    stack = [(target, False)]
    while stack:  # an iterative post-order walk: a long chain must not hit Python's recursion limit
        value, expanded = stack.pop()
        if not expanded and value in depends:
            continue  # a leaf, or a value reached before on another path
        producer = graph.producer(value)
        if producer is None:  # a graph input that is neither an x nor a z, or a literal: a constant
            depends[value] = False
            continue
        slots = [producer.op.operands[i] if producer.has_input(i) else None for i in range(producer.num_inputs)]
        if not expanded:
            for result in producer.op.results:
                depends.setdefault(result, False)  # visited; set below once its operands are done
            stack.append((value, True))
            stack.extend((operand, False) for operand in slots if operand is not None and operand not in depends)
            continue
        flags = [operand is not None and depends[operand] for operand in slots]
        for result in producer.op.results:
            if result not in leaves:  # an x named beside another result keeps its own flag
                depends[result] = any(flags)
        if any(flags):
            ordered.append(_PathNode(producer, slots, flags))
    for step in ordered:
        op = step.view.op
        if op.block == node.op.block and not op.is_before_in_block(node.op):
            node.fail(f"{step.view.describe()} computes a tensor on the path to y but comes after the Gradient node")
    return ordered


def _backpropagate(node: OnnxNode, graph, b: TorchBuilder, path: list[_PathNode], target: ir.Value) -> dict:
    """Raw ONNX value -> its accumulated gradient (a `!torch.vtensor`), seeded with ones at y."""
    seed_value = graph.torch_value(target)
    info = b.info(seed_value)
    if info is None or info.rank is None:
        node.fail("y must be a ranked tensor")
    if info.element not in FLOAT_ELEMENTS:
        node.fail(f"y has element type {info.element}: only float tensors are differentiated")
    gradients = {target: b.full(b.dims(seed_value), 1.0, info.element)}
    for step in reversed(path):
        view = step.view
        if view.num_results != 1:
            node.fail(f"{view.describe()} on the path from xs to y has {view.num_results} outputs; only "
                      "single-output nodes are differentiated")
        upstream = gradients.get(view.op.results[0])
        if upstream is None:
            continue
        rule = RULES.get((view.domain, view.op_type))
        if rule is None:
            node.fail(f"{view.describe()} is on the path from xs to y, and {view.op_type} has no gradient rule "
                      f"(supported: {', '.join(sorted(op for _, op in RULES))})")
        context = _RuleContext(node, graph, b, view, step.depends)
        if view.opset < 7 and view.has_attr("broadcast") and view.attr_int("broadcast", 0):
            context.fail("the legacy broadcast of opsets before 7 (attribute 'broadcast') is not differentiated")
        contributions = rule(context, upstream)
        for index, (operand, wanted, contribution) in enumerate(zip(step.operands, step.depends, contributions)):
            if not wanted or contribution is None:
                continue
            contribution = b.cast_to(contribution, b.type_like(view.input(index)))
            previous = gradients.get(operand)
            gradients[operand] = contribution if previous is None else b.binary("aten.add.Tensor", previous, contribution)
    return gradients


class _RuleContext:
    """What a vector-Jacobian rule reads: the forward node, its operands as torch values, which
    operands need a gradient, and the Gradient node to fail on."""

    def __init__(self, gradient_node: OnnxNode, graph, b: TorchBuilder, view: OnnxNode, depends: list):
        self.gradient_node, self.graph, self.b, self.view, self.depends = gradient_node, graph, b, view, depends

    def input(self, index: int) -> ir.Value:
        return self.view.input(index)

    def fail(self, reason: str):
        self.gradient_node.fail(f"{self.view.describe()}: {reason}")

    def constant(self, index: int) -> np.ndarray | None:
        """Operand `index` as numpy if a literal or an (unconverted) Constant node gives it."""
        found = self.view.constant_input(index)
        if found is not None or not self.view.has_input(index):
            return found
        producer = self.graph.producer(self.view.op.operands[index])
        if producer is None or producer.op_type != "Constant":
            return None
        for name in ("value", "value_float", "value_int", "value_floats", "value_ints"):
            if producer.has_attr(name):
                if name == "value":
                    return producer.attr_tensor("value")
                return np.array(producer.attr_floats(name) if "float" in name and name.endswith("s")
                                else producer.attr_ints(name) if name.endswith("s")
                                else producer.attr_float(name) if "float" in name else producer.attr_int(name))
        return None

    def sum_to(self, gradient: ir.Value, index: int) -> ir.Value:
        """`gradient` (of the broadcast result) summed back to the shape of operand `index` of a
        binary elementwise node."""
        return sum_to_shape(self, gradient, self.input(index), self.b.info(self.input(1 - index)).sizes)


def sum_to_shape(context: _RuleContext, gradient: ir.Value, target: ir.Value, other_sizes) -> ir.Value:
    """Sum the dims numpy broadcasting added to `target` or stretched, so `gradient` gets its shape.

    `other_sizes` are the sizes of the operand `target` was broadcast with. A dynamic dim of
    `target` was stretched if it is 1 at run time: where the other operand's aligned dim is 1 or
    absent, it was not (it is the full size) and nothing is summed; otherwise the gradient's dim n
    is split into (n / t, t) and the first part summed, which is right for t = 1 and t = n alike."""
    b = context.b
    have, sizes = b.info(gradient).sizes, b.info(target).sizes
    if have is None or sizes is None or other_sizes is None:
        context.fail("broadcasting gradients need ranked operands")
    lead = len(have) - len(sizes)
    if lead:
        gradient = b.op("aten.sum.dim_IntList", b.reduced_type(gradient, list(range(lead)), False), gradient,
                        b.int_list(list(range(lead))), b.constant_bool(False), b.constant_none())
    stretched = []
    for k, size in enumerate(sizes):
        full = have[lead + k]
        beside = len(other_sizes) - len(sizes) + k  # the other operand's aligned dim
        if full == 1 or (size is not None and size == full):
            continue
        if size == 1:
            stretched.append(k)
        elif size is None and not (beside < 0 or other_sizes[beside] == 1):
            gradient = _sum_split_dim(b, gradient, k, b.dim(target, k))
    if stretched:
        gradient = b.op("aten.sum.dim_IntList", b.reduced_type(gradient, stretched, True), gradient,
                        b.int_list(stretched), b.constant_bool(True), b.constant_none())
    return gradient


def _sum_split_dim(b: TorchBuilder, gradient: ir.Value, k: int, size) -> ir.Value:
    """Dim k of `gradient` (of length n) split into (n / size, size), the first part summed."""
    dims = b.dims(gradient)
    split = dims[:k] + [b.dim_floordiv(dims[k], size), size] + dims[k + 1:]
    reshaped = b.reshape(gradient, split)
    return b.op("aten.sum.dim_IntList", b.reduced_type(reshaped, [k], False), reshaped, b.int_list([k]),
                b.constant_bool(False), b.constant_none())


# -- vector-Jacobian rules: (context, upstream gradient) -> one gradient per operand (None: not needed)

def _mul(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.binary("aten.mul.Tensor", x, y)


def _div(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.binary("aten.div.Tensor", x, y)


def _one_minus(b: TorchBuilder, x: ir.Value) -> ir.Value:
    return b.scalar_op("aten.add.Scalar", b.negate(x), 1.0)


def _add_rule(c: _RuleContext, g: ir.Value) -> list:
    return [c.sum_to(g, 0) if c.depends[0] else None, c.sum_to(g, 1) if c.depends[1] else None]


def _sub_rule(c: _RuleContext, g: ir.Value) -> list:
    return [c.sum_to(g, 0) if c.depends[0] else None, c.sum_to(c.b.negate(g), 1) if c.depends[1] else None]


def _mul_rule(c: _RuleContext, g: ir.Value) -> list:
    b, lhs, rhs = c.b, c.input(0), c.input(1)
    return [c.sum_to(_mul(b, g, rhs), 0) if c.depends[0] else None,
            c.sum_to(_mul(b, g, lhs), 1) if c.depends[1] else None]


def _div_rule(c: _RuleContext, g: ir.Value) -> list:
    """d(a/b) = da / b - a * db / b^2."""
    b, lhs, rhs = c.b, c.input(0), c.input(1)
    by_rhs = None
    if c.depends[1]:
        by_rhs = c.sum_to(b.negate(_div(b, _mul(b, g, lhs), _mul(b, rhs, rhs))), 1)
    return [c.sum_to(_div(b, g, rhs), 0) if c.depends[0] else None, by_rhs]


def _neg_rule(c: _RuleContext, g: ir.Value) -> list:
    return [c.b.negate(g)]


def _identity_rule(c: _RuleContext, g: ir.Value) -> list:
    return [g]


def _relu_rule(c: _RuleContext, g: ir.Value) -> list:
    b, x = c.b, c.input(0)
    info = b.info(x)
    positive = b.op("aten.gt.Scalar", b.tensor_type(info.sizes, "i1"), x, b.constant_float(0.0))
    return [_mul(b, g, b.to_dtype(positive, info.element))]


def _sigmoid_rule(c: _RuleContext, g: ir.Value) -> list:
    """sigmoid' = s (1 - s)."""
    b = c.b
    s = b.unary("aten.sigmoid", c.input(0))
    return [_mul(b, g, _mul(b, s, _one_minus(b, s)))]


def _tanh_rule(c: _RuleContext, g: ir.Value) -> list:
    """tanh' = 1 - t^2."""
    b = c.b
    t = b.unary("aten.tanh", c.input(0))
    return [_mul(b, g, _one_minus(b, _mul(b, t, t)))]


def _exp_rule(c: _RuleContext, g: ir.Value) -> list:
    return [_mul(c.b, g, c.b.unary("aten.exp", c.input(0)))]


def _log_rule(c: _RuleContext, g: ir.Value) -> list:
    return [_div(c.b, g, c.input(0))]


def _sqrt_rule(c: _RuleContext, g: ir.Value) -> list:
    """sqrt' = 1 / (2 sqrt(x))."""
    b = c.b
    return [_div(b, g, b.scalar_op("aten.mul.Scalar", b.unary("aten.sqrt", c.input(0)), 2.0))]


def _pow_rule(c: _RuleContext, g: ir.Value) -> list:
    """d(x^e)/dx = e x^(e-1), for an exponent that does not depend on xs."""
    if c.depends[1]:
        c.fail("the exponent depends on xs; only Pow with an exponent independent of xs is differentiated")
    b, x = c.b, c.input(0)
    element = b.info(x).element
    exponent = c.constant(1)
    if exponent is not None and exponent.size == 1:
        value = float(exponent.reshape(-1)[0])
        slope = b.scalar_op("aten.mul.Scalar", b.scalar_op("aten.pow.Tensor_Scalar", x, value - 1.0), value)
        return [_mul(b, g, slope), None]
    tensor = b.to_dtype(c.input(1), element)
    powered = b.binary("aten.pow.Tensor_Tensor", x, b.scalar_op("aten.sub.Scalar", tensor, 1.0))
    return [c.sum_to(_mul(b, g, _mul(b, powered, tensor)), 0), None]


def _reduce_sum_rule(c: _RuleContext, g: ir.Value) -> list:
    """The upstream gradient, with the reduced dims put back, broadcast to x's shape."""
    b, view, x = c.b, c.view, c.input(0)
    rank = b.info(x).rank
    if rank is None:
        c.fail("ReduceSum needs a ranked input")
    if view.opset >= 13:
        axes = None
        if view.has_input(1):
            axes = c.constant(1)
            if axes is None:
                c.fail("ReduceSum's 'axes' must be a constant to differentiate it")
            axes = [int(axis) for axis in axes.reshape(-1)]
        if not axes and view.attr_int("noop_with_empty_axes", 0):
            return [g, None]
    else:
        axes = view.attr_ints("axes", None)
    axes = sorted(view.axis(axis, rank) for axis in axes) if axes else list(range(rank))
    if not view.attr_int("keepdims", 1):
        for axis in axes:
            g = b.unsqueeze(g, axis)
    return [b.op("aten.broadcast_to", b.type_like(x), g, b.int_list(b.dims(x))), None]


def _transpose_rule(c: _RuleContext, g: ir.Value) -> list:
    b, x = c.b, c.input(0)
    rank = b.info(x).rank
    if rank is None:
        c.fail("Transpose needs a ranked input")
    perm = c.view.attr_ints("perm", None) or list(reversed(range(rank)))
    inverse = [perm.index(i) for i in range(rank)]
    return [b.op("aten.permute", b.type_like(x), g, b.int_list(inverse))]


def _reshape_rule(c: _RuleContext, g: ir.Value) -> list:
    b, x = c.b, c.input(0)
    return [b.reshape(g, b.dims(x), b.info(x).sizes), None]


def _transposed(b: TorchBuilder, x: ir.Value) -> ir.Value:
    """x with its last two dims swapped."""
    info = b.info(x)
    sizes = list(info.sizes[:-2]) + [info.sizes[-1], info.sizes[-2]]
    return b.op("aten.transpose.int", b.tensor_type(sizes, info.element), x, b.constant_int(-2), b.constant_int(-1))


def _matmul(b: TorchBuilder, lhs: ir.Value, rhs: ir.Value, batch: list) -> ir.Value:
    """lhs @ rhs for operands of rank >= 2 whose batch dims broadcast to `batch` (dims).

    Both are broadcast to `batch` explicitly and multiplied by `aten.mm` or `aten.bmm` (batch
    dims flattened): torch-mlir decomposes no `aten.matmul` of two dynamic batches."""
    lhs, rhs = _to_batch(b, lhs, batch), _to_batch(b, rhs, batch)
    rows, columns = b.info(lhs).sizes[-2], b.info(rhs).sizes[-1]
    element = b.info(lhs).element
    if not batch:
        return b.op("aten.mm", b.tensor_type([rows, columns], element), lhs, rhs)
    if len(batch) > 1:
        lhs = b.reshape(lhs, [-1] + b.dims(lhs)[-2:])
        rhs = b.reshape(rhs, [-1] + b.dims(rhs)[-2:])
    count = b.static_dim(b.dim_product(batch)) if all(not isinstance(d, ir.Value) for d in batch) else None
    product = b.op("aten.bmm", b.tensor_type([count, rows, columns], element), lhs, rhs)
    if len(batch) == 1:
        return product
    return b.reshape(product, list(batch) + [b.dim(lhs, -2), b.dim(rhs, -1)])


def _to_batch(b: TorchBuilder, x: ir.Value, batch: list) -> ir.Value:
    """x broadcast to the batch dims `batch` (its matrix dims kept)."""
    info = b.info(x)
    static = [b.static_dim(d) for d in batch]
    if list(info.sizes[:-2]) == static and None not in static:
        return x
    sizes = static + list(info.sizes[-2:])
    return b.op("aten.broadcast_to", b.tensor_type(sizes, info.element), x, b.int_list(list(batch) + [-1, -1]))


def _matmul_rule(c: _RuleContext, g: ir.Value) -> list:
    """dA = G B^T, dB = A^T G (numpy matmul semantics: a 1-D A is a row, a 1-D B a column, and
    broadcast batch dims are summed back)."""
    b, lhs, rhs = c.b, c.input(0), c.input(1)
    left, right = b.info(lhs).sizes, b.info(rhs).sizes
    if left is None or right is None or b.info(g).sizes is None:
        c.fail("MatMul needs ranked operands")
    if len(left) == 1:
        lhs, g = b.unsqueeze(lhs, 0), b.unsqueeze(g, -1 if len(right) == 1 else -2)
    if len(right) == 1:
        rhs = b.unsqueeze(rhs, -1)
        if len(left) > 1:
            g = b.unsqueeze(g, -1)
    batch = b.dims(g)[:-2]  # the product's batch: both operands' broadcast
    results = []
    for wanted, original, operand, other, product in (
        (c.depends[0], c.input(0), lhs, rhs, lambda: _matmul(b, g, _transposed(b, rhs), batch)),
        (c.depends[1], c.input(1), rhs, lhs, lambda: _matmul(b, _transposed(b, lhs), g, batch)),
    ):
        if not wanted:
            results.append(None)
            continue
        other_batch = b.info(other).sizes[:-2] + (1, 1)  # the matrix dims never broadcast, the batch dims do
        summed = sum_to_shape(c, product(), operand, other_batch)
        sizes = b.info(original).sizes
        results.append(b.reshape(summed, b.dims(original), sizes) if len(sizes) == 1 else summed)
    return results


RULES = {
    ("", op_type): rule for op_type, rule in (
        ("Add", _add_rule), ("Sub", _sub_rule), ("Mul", _mul_rule), ("Div", _div_rule), ("Neg", _neg_rule),
        ("Identity", _identity_rule), ("MatMul", _matmul_rule), ("Relu", _relu_rule), ("Sigmoid", _sigmoid_rule),
        ("Tanh", _tanh_rule), ("Exp", _exp_rule), ("Log", _log_rule), ("Sqrt", _sqrt_rule), ("Pow", _pow_rule),
        ("ReduceSum", _reduce_sum_rule), ("Transpose", _transpose_rule), ("Reshape", _reshape_rule),
    )
}
