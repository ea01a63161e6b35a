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

from .torch_rewriting import ops_named, vtensor_sizes, vtensor_spelling

_VIEWS = {"torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view"}


def give_views_their_static_type(module: ir.Module) -> int:
    """Refine every view of a static tensor whose result has one `?`; the count refined."""
    refined = 0
    with module.context:
        for view in ops_named(module, _VIEWS):
            refined += _refine(view)
    return refined


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
    result = view.results[0]
    original_type = result.type
    with view.location:
        static_type = ir.Type.parse(vtensor_spelling(static_sizes, element))
        result.set_type(static_type)
        with ir.InsertionPoint.after(view):
            cast = ir.Operation.create("torch.tensor_static_info_cast", results=[original_type], operands=[result])
    result.replace_all_uses_except(cast.results[0], cast)
    return 1
