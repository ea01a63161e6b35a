"""Which dims of the graph's inputs stay dynamic after `--dim` and `--input-shape`, and the flags
that fix them.

A backend form that needs a static size (TOSA's reshape, a Range's bound, StableHLO's windows) fails
deep inside the module, on a tensor the user never named. What the user can change is the graph's
inputs: so the error lists each input dim still open, by its ONNX name (a `dim_param` such as
`batch` or an expression such as `past_sequence_length + sequence_length`, which `--dim` takes
verbatim), and spells out the flags that fix it: `--dim 'NAME=N'` for a named dim, `--input-shape
'INPUT=?xD1'` for a dim without a name, or `--dims-from INPUTS.npz` for all of them at once. (Inputs
that share a name but differ in size at run time, an older merged decoder's `sequence_length`,
need an `--input-shape` each: the message names the flag, not the inputs, as only the user knows.)
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

import onnx

from .fixed_dims import (
    fix_input_shapes, fix_symbolic_dims, parse_dim_options, parse_input_shape_options, without_negative_dims,
)

# Inputs named per dim in the message; the rest are counted ("and 21 more"): a KV-cache decoder
# has 50 inputs sharing `batch_size`.
LISTED_INPUTS = 3


@dataclass(frozen=True)
class OpenDim:
    input: str
    axis: int | None  # None: the input declares no shape at all
    name: str | None  # the dim_param, None for a dim without one


def open_input_dims(model: onnx.ModelProto, dims=None, input_shapes=None) -> list[OpenDim]:
    """The dims of `model`'s graph inputs (initializers aside) that are not static once `dims` and
    `input_shapes` (as `compile` takes them) are applied, in graph order."""
    fixed = without_negative_dims(model)
    fixed = fix_symbolic_dims(fixed, parse_dim_options(dims))
    fixed = fix_input_shapes(fixed, parse_input_shape_options(input_shapes))
    initializers = {initializer.name for initializer in fixed.graph.initializer}
    found = []
    for value in fixed.graph.input:
        if value.name in initializers or not value.type.HasField("tensor_type"):
            continue
        if not value.type.tensor_type.HasField("shape"):
            found.append(OpenDim(value.name, None, None))
            continue
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if not dim.HasField("dim_value"):
                found.append(OpenDim(value.name, axis, dim.dim_param or None))
    return found


def open_dims_hint(model, dims=None, input_shapes=None) -> str | None:
    """The input dims still dynamic in `model` (a path, bytes or ModelProto) and the flags that fix
    them, as one line; None when every input dim is static (the dynamic size comes from data)."""
    from .loading import open_model

    proto = open_model(model).proto
    opened = open_input_dims(proto, dims, input_shapes)
    if not opened:
        return None
    return f"{describe_open_dims(opened)}; {suggest_fixes(opened, _declared_shapes(proto, input_shapes))}"


def describe_open_dims(opened: list[OpenDim]) -> str:
    """"dims still dynamic: 'batch' (dim 0 of 'ids', 'mask'), dim 2 of 'x' (no name)"."""
    parts = []
    for name, members in _by_name(opened).items():
        if name is not None:
            parts.append(f"'{name}' (dim {_axes(members)} of {_inputs(members)})")
    for dim in opened:
        if dim.name is None:
            where = f"dim {dim.axis} of '{dim.input}'" if dim.axis is not None else f"the shape of '{dim.input}'"
            parts.append(f"{where} (no name)")
    return "dims still dynamic after --dim and --input-shape: " + ", ".join(parts)


def suggest_fixes(opened: list[OpenDim], declared: dict[str, list[str]]) -> str:
    """The flags that fix every dim of `opened`; `declared`: each input's dims as text (a size, or
    the dim_param) for writing whole shapes."""
    by_name = {name: members for name, members in _by_name(opened).items() if name is not None}
    unnamed_inputs = _unique(dim.input for dim in opened if dim.name is None)
    flags = [f"--dim {shlex.quote(f'{name}=N')}" for name in by_name]
    flags += [_input_shape_flag(name, declared.get(name), {dim.axis for dim in opened if dim.input == name})
              for name in unnamed_inputs]
    text = "fix them at compile time with --dim NAME=SIZE or --input-shape INPUT=D0xD1: " + " ".join(flags)
    return text + ", or every one from example inputs with --dims-from INPUTS.npz"


def _input_shape_flag(name: str, declared: list[str] | None, open_axes: set) -> str:
    """`--input-shape 'x=2xD1x8'`: D<axis> at each open dim without a name, `?` at a named one
    (--dim fixes it)."""
    if declared is None:
        return f"--input-shape {shlex.quote(f'{name}=D0xD1')}"
    sizes = []
    for axis, size in enumerate(declared):
        if axis in open_axes and not _is_name(size):
            sizes.append(f"D{axis}")
        elif _is_name(size) or axis in open_axes:
            sizes.append("?")
        else:
            sizes.append(size)
    return f"--input-shape {shlex.quote(name + '=' + 'x'.join(sizes))}"


def _declared_shapes(model: onnx.ModelProto, input_shapes=None) -> dict[str, list[str]]:
    """Each input's dims as text: its size (given by --input-shape, or declared) or its dim_param
    ("" for neither)."""
    fixed = fix_input_shapes(without_negative_dims(model), parse_input_shape_options(input_shapes))
    shapes = {}
    for value in fixed.graph.input:
        if value.type.HasField("tensor_type") and value.type.tensor_type.HasField("shape"):
            shapes[value.name] = [str(dim.dim_value) if dim.HasField("dim_value") else dim.dim_param
                                  for dim in value.type.tensor_type.shape.dim]
    return shapes


def _is_name(size: str) -> bool:
    return bool(size) and not size.isdigit()


def _by_name(opened: list[OpenDim]) -> dict[str | None, list[OpenDim]]:
    grouped: dict[str | None, list[OpenDim]] = {}
    for dim in opened:
        grouped.setdefault(dim.name, []).append(dim)
    return grouped


def _axes(members: list[OpenDim]) -> str:
    return "/".join(str(axis) for axis in sorted({dim.axis for dim in members}))


def _inputs(members: list[OpenDim]) -> str:
    names = _unique(dim.input for dim in members)
    listed = ", ".join(f"'{name}'" for name in names[:LISTED_INPUTS])
    return listed + (f" and {len(names) - LISTED_INPUTS} more inputs" if len(names) > LISTED_INPUTS else "")


def _unique(items) -> list:
    return list(dict.fromkeys(items))
