"""Views of a static tensor typed with the one size their element count fixes.

torch-mlir's Linalg lowering faults (SIGSEGV) on an `aten.view` of a static tensor to a type with a
`?` that an `aten.matmul` then reads (found by tools/fuzz.py: an Attention whose value has a symbolic
last dim; its target shape takes that dim from another input, so our conversion cannot know it is
static). The element count fixes the missing size, so the view gets its static type, and a
`torch.tensor_static_info_cast` gives its users the type they had.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ...mlir_passes import run_passes
from ..torch.rewriting import constant_int, defining_op, ops_named, vtensor_sizes, vtensor_spelling

_VIEWS = {"torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view"}
_PERMUTES = {"torch.aten.permute"}


def static_view_types(module: ir.Module) -> None:
    """Give views and permutes their static types, then let torch-mlir's shape refinement pass them on
    to the ops after them: torch-mlir's Linalg lowering faults on views of static tensors typed `?`,
    and on the ops after them typed `?` too."""
    if give_views_their_static_type(module):
        run_passes(module, "func.func(canonicalize),torch-shape-refinement-pipeline,func.func(canonicalize)",
                   stage="view types")


def give_views_their_static_type(module: ir.Module) -> int:
    """Refine every view of a static tensor whose result has one `?`, and every permute whose
    result has a `?` where its operand's dim is static; the count refined."""
    refined = 0
    with module.context:
        for view in ops_named(module, _VIEWS):
            refined += _refine_listed_sizes(view) or _refine(view)
        for permute in ops_named(module, _PERMUTES):
            refined += _refine_permute(permute)
    return refined


def _listed_ints(value: ir.Value) -> list | None:
    """Each element of a `torch.prim.ListConstruct`: its int when a `torch.constant.int`, else None;
    None for a list not built there."""
    owner = defining_op(value)
    if owner is None or owner.name != "torch.prim.ListConstruct":
        return None
    return [constant_int(element) for element in owner.operands]


def _permutation(permute: ir.Operation) -> list | None:
    dims = _listed_ints(permute.operands[1])
    return None if dims is None or None in dims else dims


def _refine_listed_sizes(view: ir.Operation) -> int:
    result_sizes, element = vtensor_sizes(view.results[0].type)
    listed = _listed_ints(view.operands[1])
    if result_sizes is None or listed is None or len(listed) != len(result_sizes):
        return 0
    static_sizes = [
        wanted if size is None and wanted is not None and wanted >= 0 else size
        for size, wanted in zip(result_sizes, listed)
    ]
    if static_sizes == result_sizes:
        return 0
    return _retype(view, static_sizes, element)


def _refine_permute(permute: ir.Operation) -> int:
    source_sizes, _ = vtensor_sizes(permute.operands[0].type)
    result_sizes, element = vtensor_sizes(permute.results[0].type)
    if source_sizes is None or result_sizes is None or None not in result_sizes:
        return 0
    order = _permutation(permute)
    if order is None or len(order) != len(result_sizes) or len(source_sizes) != len(result_sizes):
        return 0
    rank = len(order)
    static_sizes = [source_sizes[d % rank] if size is None else size for size, d in zip(result_sizes, order)]
    if static_sizes == result_sizes:
        return 0
    return _retype(permute, static_sizes, element)


def _refine(view: ir.Operation) -> int:
    source_sizes, _ = vtensor_sizes(view.operands[0].type)
    result_sizes, element = vtensor_sizes(view.results[0].type)
    if source_sizes is None or result_sizes is None or None in source_sizes or result_sizes.count(None) != 1:
        return 0
    known = math.prod(size for size in result_sizes if size is not None)
    count = math.prod(source_sizes)
    if known == 0 or count % known:
        return 0
    static_sizes = [count // known if size is None else size for size in result_sizes]
    return _retype(view, static_sizes, element)


def _retype(op: ir.Operation, static_sizes: list, element) -> int:
    """`op`'s result typed `static_sizes`; a `torch.tensor_static_info_cast` gives its users the old type."""
    result = op.results[0]
    original_type = result.type
    with op.location:
        static_type = ir.Type.parse(vtensor_spelling(static_sizes, element))
        result.set_type(static_type)
        with ir.InsertionPoint.after(op):
            cast = ir.Operation.create("torch.tensor_static_info_cast", results=[original_type], operands=[result])
    result.replace_all_uses_except(cast.results[0], cast)
    return 1
