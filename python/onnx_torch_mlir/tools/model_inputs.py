"""Inputs for `run` and `verify`: from .npy and .npz files, or made up deterministically.

Every input is checked against the model's declared element type and shape (and the sizes
`--dim` and `--input-shape` fix) before anything is compiled: a wrong input is named with
what the model declares, not found later as a bad argument of the compiled program.
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from ..conformance.cases import graph_input_names
from ..errors import OnnxTorchMlirError
from ..importer.fixed_dims import UNNAMED_DIM_PARAMS, parse_input_shape_options
from .compile_options import add_dims_from_argument, add_string_bytes_argument


def add_input_arguments(parser) -> None:
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy|FILE.npz",
        help="an input from a .npy file, or inputs from an .npz file whose keys are the input names "
        "(or arr_0, arr_1, ... in the order of the graph's inputs), as `run --save-inputs` writes it "
        "(repeatable); inputs not given are made up",
    )
    parser.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="NAME=SIZE",
        help="fix the symbolic dim NAME (an input's dim_param, verbatim: also an expression, "
        "--dim 'past_sequence_length + sequence_length=10') to SIZE at compile time and in made-up inputs "
        "(repeatable; without it a symbolic dim stays dynamic and is 1 in made-up inputs)",
    )
    parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="INPUT=D0xD1",
        help="fix the whole shape of input INPUT at compile time and in a made-up input (repeatable)",
    )
    add_dims_from_argument(parser, "at compile time and in made-up inputs")
    add_string_bytes_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed for made-up inputs (default 0)")


def model_inputs(model: onnx.ModelProto, args) -> list[np.ndarray]:
    """One array per graph input that is not an initializer, in graph order, each checked against
    the model's declaration."""
    names = graph_input_names(model)
    given = _given_inputs(args.input, names)
    sizes = _parse_pairs(args.dim, "--dim", int)
    shapes = parse_input_shape_options(args.input_shape)
    by_name = {value.name: value for value in model.graph.input}
    generator = np.random.default_rng(args.seed)
    bound: dict[str, tuple[int, str]] = {}  # symbolic dim -> (size, the input that fixed it)
    fixed_by = f"--dims-from {args.dims_from}" if getattr(args, "dims_from", None) else None
    checked = {name: _checked(by_name[name], given[name], sizes, shapes.get(name), bound, fixed_by)
               for name in names if name in given}
    # A made-up input takes the sizes given inputs have for its symbolic dims.
    sizes = {**{dim: size for dim, (size, _) in bound.items()}, **sizes}
    return [
        checked[name] if name in checked else _made_up(by_name[name], sizes, shapes.get(name), generator)
        for name in names
    ]


def input_files(args) -> list[str]:
    """The files `--input` names (each NAME=FILE's FILE, or the .npz), which an output must not replace."""
    return [item if _is_archive(item) else item.partition("=")[2] or item for item in args.input]


def _is_archive(item: str) -> bool:
    return item.endswith(".npz") and ("=" not in item or Path(item).is_file())


def _given_inputs(items, names: list[str]) -> dict[str, np.ndarray]:
    """The arrays `--input` gives, by input name; a later option overrides an earlier one."""
    given = {}
    for item in items:
        if _is_archive(item):
            given.update(load_archive(item, names))
            continue
        name, separator, path = item.partition("=")
        if not separator or not name:
            raise OnnxTorchMlirError(f"--input {item}: expected NAME=FILE.npy or FILE.npz")
        if name not in names:
            raise OnnxTorchMlirError(f"--input {name}: the model has no such input (inputs: {', '.join(names)})")
        given[name] = _load_npy(path, name)
    return given


def load_archive(path: str, names: list[str], flag: str = "--input") -> dict[str, np.ndarray]:
    """The arrays of the .npz `path` by input name: keys the input names, or arr_0, arr_1, ... in the
    order of `names` (what np.savez writes for positional arrays); `flag` starts every error."""
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError("it holds one .npy array")
        with loaded as archive:
            arrays = {key: archive[key] for key in archive.files}
    except FileNotFoundError:
        raise OnnxTorchMlirError(f"{flag} {path}: no such file") from None
    except (ValueError, OSError) as error:
        raise OnnxTorchMlirError(f"{flag} {path}: not an .npz archive of arrays ({error})") from None
    positional = {f"arr_{index}": name for index, name in enumerate(names)}
    found = {}
    for key, array in arrays.items():
        name = key if key in names else positional.get(key)
        if name is None:
            raise OnnxTorchMlirError(
                f"{flag} {path}: array '{key}' is not an input of the model (inputs: {', '.join(names)}; "
                + (f"or arr_0 to arr_{len(names) - 1} in their order)" if len(names) > 1 else "or arr_0)")
            )
        found[name] = array
    return found


def _checked(value: onnx.ValueInfoProto, array: np.ndarray, sizes: dict, shape: list | None, bound: dict,
             fixed_by: str | None = None) -> np.ndarray:
    """`array` if it is what `value` declares (element type, rank, sizes), else a one-line error.
    `fixed_by`: the option that fixed `sizes` and `shape` when not --dim and --input-shape."""
    if not value.type.HasField("tensor_type") or not value.type.tensor_type.elem_type:
        return array
    tensor_type = value.type.tensor_type
    expected = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
    if array.dtype != expected and expected.kind == "V" and array.dtype.kind in "uV" \
            and array.dtype.itemsize == expected.itemsize:
        array = array.view(expected)  # bfloat16, float8, int4 saved by numpy as raw bytes
    reason = None
    if array.dtype != expected:
        reason = ""
    elif tensor_type.HasField("shape"):
        reason = _shape_mismatch(tensor_type.shape.dim, array.shape, sizes, shape, bound, value.name, fixed_by)
    if reason is not None:
        dims = ", ".join(
            str(dim.dim_value) if dim.HasField("dim_value") else dim.dim_param or "?" for dim in tensor_type.shape.dim
        )
        declared = f"{expected} [{dims}]" if tensor_type.HasField("shape") else str(expected)
        raise OnnxTorchMlirError(
            f"input '{value.name}': got shape {tuple(array.shape)} dtype {array.dtype}, the model declares {declared}"
            + (f" ({reason})" if reason else "")
        )
    return array


def _shape_mismatch(dims, got: tuple, sizes: dict, shape: list | None, bound: dict, name: str,
                    fixed_by: str | None = None) -> str | None:
    """Why `got` does not fit the declared `dims`: "" (plain to see), a reason, or None if it fits."""
    if len(got) != len(dims):
        return ""
    for index, (dim, size) in enumerate(zip(dims, got)):
        if shape is not None and shape[index] is not None and shape[index] != size:
            return f"{fixed_by or '--input-shape'} fixes dim {index} to {shape[index]}"
        if dim.HasField("dim_value") and dim.dim_value >= 0:
            if dim.dim_value != size:
                return ""
        elif dim.dim_param and dim.dim_param not in UNNAMED_DIM_PARAMS:  # paddle2onnx names any dim "?"
            if dim.dim_param in sizes and sizes[dim.dim_param] != size:
                return f"{fixed_by or '--dim'} fixes {dim.dim_param} to {sizes[dim.dim_param]}"
            earlier = bound.setdefault(dim.dim_param, (size, name))
            if earlier[0] != size:
                return f"{dim.dim_param} is {earlier[0]} in input '{earlier[1]}'"
    return None


def _parse_pairs(items, flag, convert):
    if isinstance(items, dict):  # already parsed (--dims-from merged into --dim)
        return dict(items)
    pairs = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise OnnxTorchMlirError(f"{flag} {item}: expected NAME=VALUE")
        try:
            pairs[name] = convert(value)
        except ValueError:
            raise OnnxTorchMlirError(f"{flag} {item}: '{value}' is not valid here") from None
    return pairs


def _load_npy(path: str, name: str) -> np.ndarray:
    try:
        loaded = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise OnnxTorchMlirError(f"--input {name}: {path}: no such file") from None
    except (ValueError, OSError) as error:
        raise OnnxTorchMlirError(f"--input {name}: {path}: not a .npy array ({error})") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        return loaded
    with loaded:  # NAME=FILE.npz: the archive's array NAME, or its only array
        if name in loaded.files or len(loaded.files) == 1:
            return loaded[name if name in loaded.files else loaded.files[0]]
    raise OnnxTorchMlirError(f"--input {name}: {path} has no array '{name}' (arrays: {', '.join(loaded.files)})")


def _made_up(value: onnx.ValueInfoProto, sizes: dict, shape: list | None, generator) -> np.ndarray:
    if not value.type.HasField("tensor_type"):
        raise OnnxTorchMlirError(f"input '{value.name}' is not a tensor; give it with --input")
    tensor_type = value.type.tensor_type
    declared = [dim.dim_value if dim.HasField("dim_value") and dim.dim_value >= 0 else sizes.get(dim.dim_param, 1)
                for dim in tensor_type.shape.dim]  # a -1 (paddle2onnx) is a dynamic dim
    shape = tuple(declared if shape is None else [given if given is not None else default
                                                  for given, default in zip(shape, declared)])
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
    if dtype == np.bool_:
        return generator.random(shape) < 0.5
    if dtype.kind in "iu":
        return generator.integers(0, 10, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (generator.standard_normal(shape) + 1j * generator.standard_normal(shape)).astype(dtype)
    if tensor_type.elem_type == onnx.TensorProto.STRING:
        return _made_up_text(shape, generator)
    return generator.standard_normal(shape).astype(dtype)


def _made_up_text(shape: tuple, generator) -> np.ndarray:
    """Strings of two to six lowercase words of two to eight letters."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    texts = [" ".join("".join(generator.choice(letters, generator.integers(2, 9)))
                      for _ in range(generator.integers(2, 7))) for _ in range(int(np.prod(shape, dtype=np.int64)))]
    return np.array(texts, dtype=object).reshape(shape)
