"""Barriers between a function's loop nests that keep LLVM's ScalarEvolution from walking the
whole function for every loop.

The runner lowers a model to one function whose body is a long chain of loop nests, one or more
per op. To prove a loop condition, ScalarEvolution walks back from the loop's header through every
block with a single predecessor, skipping each earlier loop through its preheader
(`isBasicBlockEntryGuardedByCond`, `LoopGuards::collectFromBlock`), to the function's entry, and
tries every branch condition it meets as a guard. In a chain of N loop nests that is N steps for
each of the N loops: BERT-base (12 layers) spent about half of LLVM's time there, and the JIT time
grew with the square of the number of layers (docs/runner-performance.md).

Before each top-level loop nest of a function (after the first) this inserts

    %v = llvm.load volatile @otm_loop_barrier : i8     // always 0; LLVM cannot know it
    %c = arith.trunci %v : i8 to i1
    scf.if %c { llvm.inline_asm has_side_effects "", "" }

whose join block has two predecessors, where the walk stops. At run time it costs one load and one
well-predicted branch per loop nest. What the walk could find past a barrier are the exit
conditions of earlier loop nests, which bound other induction variables. Measured on BERT-base:
LLVM's optimisation 20.1 -> 12.4 s of CPU, code generation unchanged (about 13 s), outputs
unchanged. Moving each loop nest into a function of its own (tried too) gave the same total.
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import arith, llvm, scf

BARRIER_GLOBAL = "otm_loop_barrier"
_LOOP_OPS = {"scf.for", "scf.while", "scf.parallel", "scf.forall"}


def insert_loop_barriers(module: ir.Module) -> int:
    """Insert a barrier before every top-level loop nest but the first of each function; returns how many."""
    inserted = 0
    with ir.Location.unknown():
        for function in module.body.operations:
            if function.operation.name != "func.func" or not function.regions[0].blocks:
                continue
            for block in function.regions[0].blocks:
                loops = [op for op in block.operations if op.operation.name in _LOOP_OPS]
                for loop in loops[1:]:
                    _barrier_before(loop)
                    inserted += 1
        if inserted:
            with ir.InsertionPoint.at_block_begin(module.body):
                i8 = ir.IntegerType.get_signless(8)
                llvm.GlobalOp(i8, BARRIER_GLOBAL, ir.Attribute.parse("#llvm.linkage<internal>"),
                              value=ir.IntegerAttr.get(i8, 0))
    return inserted


def _barrier_before(loop: ir.Operation) -> None:
    i1, i8 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(8)
    with ir.InsertionPoint(loop):
        address = llvm.AddressOfOp(llvm.PointerType.get(), BARRIER_GLOBAL)
        value = llvm.LoadOp(i8, address.result, volatile_=True)
        condition = arith.TruncIOp(i1, value.result)
        branch = scf.IfOp(condition.result)
        with ir.InsertionPoint(branch.then_block):
            llvm.InlineAsmOp(None, [], "", "", has_side_effects=True)
            scf.YieldOp([])
