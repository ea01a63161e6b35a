"""The outputs of a module compiled with `data_dependent_outputs="padded-with-counts"`, cut again.

Such a module returns each output whose rows the data decides (NonZero's, NonMaxSuppression's)
padded to the most rows it can have, followed by one 0-d integer count per padded output; its entry
function's `onnx_torch_mlir.padded_results` lists (result, axis, count result) triples
(transforms/torch/dynamic_rows.py). `cut_to_counts` gives what the model returns: each padded output
cut to its count along its axis, the counts dropped. A consumer of static shapes only (XLA, Arm's
TOSA reference model) runs the padded form; this is what its caller does with the results.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..transforms.torch.dynamic_rows import PADDED_RESULTS_ATTRIBUTE


def padded_results(module: ir.Module) -> list[tuple[int, int, int]]:
    """The (result, axis, count result) triples of `module`'s entry function:
    empty when no output is padded."""
    from ..transforms.output_form import entry_function

    entry = entry_function(module)
    if PADDED_RESULTS_ATTRIBUTE not in entry.attributes:
        return []
    flat = list(ir.DenseI64ArrayAttr(entry.attributes[PADDED_RESULTS_ATTRIBUTE]))
    return [tuple(flat[index:index + 3]) for index in range(0, len(flat), 3)]


def cut_to_counts(triples: list[tuple[int, int, int]], outputs: list) -> list:
    """`outputs` of a padded module as the model returns them: each padded output cut to its count
    (clamped to the padded rows), the count results dropped."""
    outputs = list(outputs)
    count_results = set()
    for result, axis, count_result in triples:
        count = int(np.clip(int(np.asarray(outputs[count_result])), 0, np.shape(outputs[result])[axis]))
        outputs[result] = np.take(np.asarray(outputs[result]), np.arange(count), axis=axis)
        count_results.add(count_result)
    return [output for index, output in enumerate(outputs) if index not in count_results]
