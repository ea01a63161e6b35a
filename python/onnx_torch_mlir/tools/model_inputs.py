"""Inputs for `run` and `verify`: from .npy files, or made up deterministically."""

import numpy as np
import onnx
from onnx import helper

from ..conformance.cases import graph_input_names
from ..errors import OnnxTorchMlirError
from ..importer.fixed_dims import parse_input_shape_options


def add_input_arguments(parser) -> None:
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input from a .npy file (repeatable); inputs not given are made up",
    )
    parser.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="NAME=SIZE",
        help="fix the symbolic dim NAME (an input's dim_param) to SIZE at compile time and in made-up inputs "
        "(repeatable; without it a symbolic dim stays dynamic and is 1 in made-up inputs)",
    )
    parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="INPUT=D0xD1",
        help="fix the whole shape of input INPUT at compile time and in a made-up input (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for made-up inputs (default 0)")


def model_inputs(model: onnx.ModelProto, args) -> list[np.ndarray]:
    """One array per graph input that is not an initializer, in graph order."""
    given = _parse_pairs(args.input, "--input", str)
    sizes = _parse_pairs(args.dim, "--dim", int)
    shapes = parse_input_shape_options(args.input_shape)
    by_name = {value.name: value for value in model.graph.input}
    names = graph_input_names(model)
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise OnnxTorchMlirError(f"--input {unknown[0]}: the model has no such input (inputs: {', '.join(names)})")
    generator = np.random.default_rng(args.seed)
    return [
        _load_npy(given[name], name) if name in given else _made_up(by_name[name], sizes, shapes.get(name), generator)
        for name in names
    ]


def input_files(args) -> list[str]:
    """The files `--input` names (each NAME=FILE's FILE), which an output must not replace."""
    return [item.partition("=")[2] or item for item in args.input]


def _parse_pairs(items, flag, convert):
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
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise OnnxTorchMlirError(f"--input {name}: {path}: no such file") from None
    except ValueError as error:
        raise OnnxTorchMlirError(f"--input {name}: {path}: not a .npy array ({error})") from None


def _made_up(value: onnx.ValueInfoProto, sizes: dict, shape: list | None, generator) -> np.ndarray:
    if not value.type.HasField("tensor_type"):
        raise OnnxTorchMlirError(f"input '{value.name}' is not a tensor; give it with --input")
    tensor_type = value.type.tensor_type
    declared = [dim.dim_value if dim.HasField("dim_value") else sizes.get(dim.dim_param, 1) for dim in tensor_type.shape.dim]
    shape = tuple(declared if shape is None else [given if given is not None else default
                                                  for given, default in zip(shape, declared)])
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
    if dtype == np.bool_:
        return generator.random(shape) < 0.5
    if dtype.kind in "iu":
        return generator.integers(0, 10, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (generator.standard_normal(shape) + 1j * generator.standard_normal(shape)).astype(dtype)
    return generator.standard_normal(shape).astype(dtype)
