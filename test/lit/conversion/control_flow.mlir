// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// If: the condition read with aten.item; the branches (else_branch first in the torch-ONNX
// spelling) become torch.prim.If's regions; branch shapes [2,3] and [4,3] join as [?,3].
// CHECK-LABEL: func.func @if_branch_shapes
// CHECK: %[[ITEM:.*]] = torch.aten.item %arg0 : !torch.vtensor<[],i1> -> !torch.int
// CHECK: %[[COND:.*]] = torch.aten.Bool.int %[[ITEM]]
// CHECK: %[[IF:.*]] = torch.prim.If %[[COND]] -> (!torch.vtensor<[?,3],f32>) {
// CHECK:   %[[RELU:.*]] = torch.aten.relu %arg1
// CHECK:   %[[T:.*]] = torch.tensor_static_info_cast %[[RELU]] : !torch.vtensor<[2,3],f32> to !torch.vtensor<[?,3],f32>
// CHECK:   torch.prim.If.yield %[[T]] : !torch.vtensor<[?,3],f32>
// CHECK: } else {
// CHECK:   %[[CAT:.*]] = torch.aten.cat
// CHECK:   %[[E:.*]] = torch.tensor_static_info_cast %[[CAT]] : !torch.vtensor<[4,3],f32> to !torch.vtensor<[?,3],f32>
// CHECK:   torch.prim.If.yield %[[E]] : !torch.vtensor<[?,3],f32>
// CHECK: return %[[IF]]
func.func @if_branch_shapes(%arg0: !torch.vtensor<[],i1>, %arg1: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.If"(%arg0) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[?,3],f32> {
    %1 = torch.operator "onnx.Concat"(%arg1, %arg1) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,3],f32>
    torch.operator_terminator %1 : !torch.vtensor<[4,3],f32>
  }, {
    %1 = torch.operator "onnx.Relu"(%arg1) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
    torch.operator_terminator %1 : !torch.vtensor<[2,3],f32>
  }
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// If-1 in the ONNX dialect spelling (then_branch first, onnx.Yield).
// CHECK-LABEL: func.func @if_onnx_dialect
// CHECK: torch.prim.If %{{.*}} -> (!torch.vtensor<[2],f32>) {
// CHECK:   torch.aten.neg
// CHECK:   torch.prim.If.yield
// CHECK: } else {
// CHECK:   torch.aten.abs
// CHECK:   torch.prim.If.yield
module attributes {onnx.opset_version = 1 : i64} {
  func.func @if_onnx_dialect(%c: tensor<1xi1>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "onnx.If"(%c) ({
      %1 = "onnx.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      "onnx.Yield"(%1) : (tensor<2xf32>) -> ()
    }, {
      %1 = "onnx.Abs"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      "onnx.Yield"(%1) : (tensor<2xf32>) -> ()
    }) : (tensor<1xi1>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

// Branches that only pick a value computed outside become aten.where: torch-mlir's Linalg
// pipeline would make an scf.if of them an arith.select of tensors, which it cannot lower.
// CHECK-LABEL: func.func @if_picks_outside_values
// CHECK-NOT: torch.prim.If
// CHECK: torch.aten.where.self %arg0, %arg1, %arg2
func.func @if_picks_outside_values(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[2],f32>, %y: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],f32> {
    torch.operator_terminator %y : !torch.vtensor<[2],f32>
  }, {
    torch.operator_terminator %x : !torch.vtensor<[2],f32>
  }
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// A literal condition inlines the chosen branch.
// CHECK-LABEL: func.func @if_literal_condition
// CHECK-NOT: torch.prim.If
// CHECK: %[[N:.*]] = torch.aten.neg %arg0
// CHECK: return %[[N]]
func.func @if_literal_condition(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %c = torch.operator "onnx.Constant"() {torch.onnx.value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1>
  %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],f32> {
    %1 = torch.operator "onnx.Abs"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %1 : !torch.vtensor<[2],f32>
  }, {
    %1 = torch.operator "onnx.Neg"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %1 : !torch.vtensor<[2],f32>
  }
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// Compiled for TOSA, a run-time If computes both branches and selects.
// CHECK-LABEL: func.func @if_for_tosa
// CHECK-NOT: torch.prim.If
// CHECK-DAG: %[[A:.*]] = torch.aten.abs %arg1
// CHECK-DAG: %[[N:.*]] = torch.aten.neg %arg1
// CHECK: torch.aten.where.self %arg0, %[[N]], %[[A]]
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @if_for_tosa(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2],f32> {
      %1 = torch.operator "onnx.Abs"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
      torch.operator_terminator %1 : !torch.vtensor<[2],f32>
    }, {
      %1 = torch.operator "onnx.Neg"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
      torch.operator_terminator %1 : !torch.vtensor<[2],f32>
    }
    return %0 : !torch.vtensor<[2],f32>
  }
}

// -----

// Loop with a trip count and no condition: a for-like torch.prim.Loop (initial condition the
// constant true); the iteration number is the loop's index; the scan output is a [M, 2] buffer
// written at row i.
// CHECK-LABEL: func.func @loop_for_like
// CHECK: %[[M:.*]] = torch.aten.item %arg0 : !torch.vtensor<[],si64> -> !torch.int
// CHECK: %[[BUFFER:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[?,2],f32>
// CHECK: %[[TRUE:.*]] = torch.constant.bool true
// CHECK: %[[LOOP:.*]]:2 = torch.prim.Loop %[[M]], %[[TRUE]], init(%arg1, %[[BUFFER]]) {
// CHECK: ^bb0(%[[I:.*]]: !torch.int, %[[ACC:.*]]: !torch.vtensor<[2],f32>, %[[ROWS:.*]]: !torch.vtensor<[?,2],f32>):
// CHECK:   %[[IT:.*]] = torch.prim.NumToTensor.Scalar %[[I]] : !torch.int -> !torch.vtensor<[],si64>
// CHECK:   %[[FI:.*]] = torch.aten.to.dtype %[[IT]]
// CHECK:   %[[SUM:.*]] = torch.aten.add.Tensor %[[ACC]], %[[FI]]
// CHECK:   %[[ROW:.*]] = torch.aten.unsqueeze %[[SUM]]
// CHECK:   %[[NEXT:.*]] = torch.aten.add.int %[[I]]
// CHECK:   %[[WRITTEN:.*]] = torch.aten.slice_scatter %[[ROWS]], %[[ROW]], %{{.*}}, %[[I]], %[[NEXT]]
// CHECK:   torch.prim.Loop.condition %[[TRUE]], iter(%[[SUM]], %[[WRITTEN]] : !torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>)
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1
func.func @loop_for_like(%m: !torch.vtensor<[],si64>, %acc0: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %0:2 = torch.operator "onnx.Loop"(%m, %none, %acc0) : (!torch.vtensor<[],si64>, !torch.none, !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>) {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %acc: !torch.vtensor<[2],f32>):
    %1 = torch.operator "onnx.Cast"(%i) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[],f32>
    %2 = torch.operator "onnx.Add"(%acc, %1) : (!torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %cond, %2, %2 : !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>
}

// -----

// Loop with a condition: while-like. The iteration number is carried as a !torch.int, the
// condition the loop sees is `cond and i + 1 < M`, and the scan output grows by aten.cat.
// CHECK-LABEL: func.func @loop_while_like
// CHECK: %[[M:.*]] = torch.aten.item %arg0
// CHECK: %[[EMPTY:.*]] = torch.tensor_static_info_cast {{.*}} : !torch.vtensor<[0],f32> to !torch.vtensor<[?],f32>
// CHECK: %[[C0:.*]] = torch.aten.Bool.int
// CHECK: %[[IN_RANGE:.*]] = torch.aten.lt.int %{{.*}}, %[[M]]
// CHECK: %[[START:.*]] = torch.aten.__and__.bool %[[C0]], %[[IN_RANGE]]
// The start goes through a one-iteration loop: torch-mlir makes a loop whose start folds to true
// for-like, which would ignore the condition.
// CHECK: %[[OPAQUE:.*]] = torch.prim.Loop %{{.*}}, %{{.*}}, init(%[[START]])
// CHECK: %[[LOOP:.*]]:3 = torch.prim.Loop %[[M]], %[[OPAQUE]], init(%arg2, %[[EMPTY]], %{{.*}}) {
// CHECK: ^bb0(%{{.*}}: !torch.int, %[[V:.*]]: !torch.vtensor<[],f32>, %[[ROWS:.*]]: !torch.vtensor<[?],f32>, %[[I:.*]]: !torch.int):
// CHECK:   %[[GROWN:.*]] = torch.aten.cat {{.*}} -> !torch.vtensor<[?],f32>
// CHECK:   %[[NEXT:.*]] = torch.aten.add.int %[[I]]
// CHECK:   %[[C:.*]] = torch.aten.Bool.int
// CHECK:   %[[MORE:.*]] = torch.aten.lt.int %[[NEXT]], %[[M]]
// CHECK:   %[[GO:.*]] = torch.aten.__and__.bool %[[C]], %[[MORE]]
// CHECK:   torch.prim.Loop.condition %[[GO]], iter(%{{.*}}, %[[GROWN]], %[[NEXT]] :
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1
func.func @loop_while_like(%m: !torch.vtensor<[],si64>, %c: !torch.vtensor<[],i1>, %v0: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[?],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0:2 = torch.operator "onnx.Loop"(%m, %c, %v0) : (!torch.vtensor<[],si64>, !torch.vtensor<[],i1>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[?],f32>) {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %v: !torch.vtensor<[],f32>):
    %1 = torch.operator "onnx.Add"(%v, %v) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %2 = torch.operator "onnx.Less"(%1, %v0) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],i1>
    torch.operator_terminator %2, %1, %v : !torch.vtensor<[],i1>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[],f32>, !torch.vtensor<[?],f32>
}

// -----

// Loop in the ONNX dialect spelling, a literal trip count: builtin-tensor block arguments are
// bridged to the torch types of the prim.Loop region.
// CHECK-LABEL: func.func @loop_onnx_dialect
// CHECK: torch.prim.Loop %{{.*}}, %{{.*}}, init(%{{.*}}) {
// CHECK: ^bb0(%{{.*}}: !torch.int, %{{.*}}: !torch.vtensor<[2],f32>):
// CHECK:   torch.aten.mul.Tensor
// CHECK:   torch.prim.Loop.condition
// CHECK-SAME: !torch.vtensor<[2],f32>
module attributes {onnx.opset_version = 13 : i64} {
  func.func @loop_onnx_dialect(%x: tensor<2xf32>) -> tensor<2xf32> {
    %m = "onnx.Constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
    %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.Loop"(%m, %none, %x) ({
    ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
      %1 = "onnx.Mul"(%v, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "onnx.Yield"(%cond, %1) : (tensor<i1>, tensor<2xf32>) -> ()
    }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

// Scan-11 over axis 1, read backwards: a for-like loop over the 4 steps selecting slice 3 - t,
// the scan output written at row t of a [4, 2] buffer, then moved to axis 1.
// CHECK-LABEL: func.func @scan_reverse_axis1
// CHECK: %[[BUFFER:.*]] = torch.aten.full {{.*}} -> !torch.vtensor<[4,2],f32>
// CHECK: %[[LOOP:.*]]:2 = torch.prim.Loop %{{.*}}, %{{.*}}, init(%arg0, %[[BUFFER]]) {
// CHECK: ^bb0(%[[T:.*]]: !torch.int, %[[S:.*]]: !torch.vtensor<[2],f32>, %[[ROWS:.*]]: !torch.vtensor<[4,2],f32>):
// CHECK:   %[[BACK:.*]] = torch.aten.sub.int %{{.*}}, %[[T]]
// CHECK:   %[[X:.*]] = torch.aten.select.int %arg1, %{{.*}}, %[[BACK]] : !torch.vtensor<[2,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[2],f32>
// CHECK:   %[[SUM:.*]] = torch.aten.add.Tensor %[[S]], %[[X]]
// CHECK:   torch.aten.slice_scatter %[[ROWS]], %{{.*}}, %{{.*}}, %[[T]]
// CHECK: torch.aten.permute %[[LOOP]]#1, {{.*}} -> !torch.vtensor<[2,4],f32>
func.func @scan_reverse_axis1(%init: !torch.vtensor<[2],f32>, %x: !torch.vtensor<[2,4],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2,4],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = torch.operator "onnx.Scan"(%init, %x) {torch.onnx.num_scan_inputs = 1 : si64, torch.onnx.scan_input_axes = [1 : si64], torch.onnx.scan_input_directions = [1 : si64], torch.onnx.scan_output_axes = [1 : si64]} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2,4],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2,4],f32>) {
  ^bb0(%s: !torch.vtensor<[2],f32>, %xt: !torch.vtensor<[2],f32>):
    %1 = torch.operator "onnx.Add"(%s, %xt) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %1, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2,4],f32>
}

// -----

// Scan-9 compiled for StableHLO: unrolled, one copy of the body per step, rows stacked.
// CHECK-LABEL: func.func @scan_unrolled_for_stablehlo
// CHECK-NOT: torch.prim.Loop
// CHECK-COUNT-3: torch.aten.add.Tensor
// CHECK: torch.aten.stack {{.*}} -> !torch.vtensor<[3,2],f32>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @scan_unrolled_for_stablehlo(%init: !torch.vtensor<[2],f32>, %x: !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) attributes {torch.onnx_meta.opset_version = 9 : si64} {
    %0:2 = torch.operator "onnx.Scan"(%init, %x) {torch.onnx.num_scan_inputs = 1 : si64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) {
    ^bb0(%s: !torch.vtensor<[2],f32>, %xt: !torch.vtensor<[2],f32>):
      %1 = torch.operator "onnx.Add"(%s, %xt) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
      torch.operator_terminator %1, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
    }
    return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>
  }
}

// -----

// Scan-8: an outer loop over the batch around the scan loop.
// CHECK-LABEL: func.func @scan8_batch
// CHECK: torch.prim.Loop %{{.*}}, %{{.*}}, init
// CHECK:   torch.aten.select.int %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[2,3,2],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,2],f32>
// CHECK:   torch.prim.Loop %{{.*}}, %{{.*}}, init
// CHECK:     torch.aten.add.Tensor
// CHECK:   torch.aten.slice_scatter
module attributes {onnx.opset_version = 8 : i64} {
  func.func @scan8_batch(%init: tensor<2x2xf32>, %x: tensor<2x3x2xf32>) -> (tensor<2x2xf32>, tensor<2x3x2xf32>) {
    %none = "onnx.NoValue"() {value} : () -> none
    %0:2 = "onnx.Scan"(%none, %init, %x) ({
    ^bb0(%s: tensor<2xf32>, %xt: tensor<2xf32>):
      %1 = "onnx.Add"(%s, %xt) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "onnx.Yield"(%1, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) {num_scan_inputs = 1 : si64} : (none, tensor<2x2xf32>, tensor<2x3x2xf32>) -> (tensor<2x2xf32>, tensor<2x3x2xf32>)
    return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x3x2xf32>
  }
}

// -----

// A literal condition: the branch not taken is dropped, and a node in it that cannot be
// converted (here a Squeeze without axes of a dynamic dim) is no error.
// CHECK-LABEL: func.func @if_untaken_branch_unconvertible
// CHECK-NOT: torch.operator
// CHECK: %[[A:.*]] = torch.aten.abs %arg0
// CHECK: torch.tensor_static_info_cast %[[A]]
func.func @if_untaken_branch_unconvertible(%x: !torch.vtensor<[?,1],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %c = torch.operator "onnx.Constant"() {torch.onnx.value = dense<false> : tensor<i1>} : () -> !torch.vtensor<[],i1>
  %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.vtensor<*,f32> {
    %1 = torch.operator "onnx.Abs"(%x) : (!torch.vtensor<[?,1],f32>) -> !torch.vtensor<[?,1],f32>
    torch.operator_terminator %1 : !torch.vtensor<[?,1],f32>
  }, {
    %1 = torch.operator "onnx.Squeeze"(%x) : (!torch.vtensor<[?,1],f32>) -> !torch.vtensor<*,f32>
    torch.operator_terminator %1 : !torch.vtensor<*,f32>
  }
  return %0 : !torch.vtensor<*,f32>
}

// -----

// A scan output whose per-iteration dims are only known at run time: a while-like loop (the step
// carried last) whose first step replaces the [0, 0] tensor by its row, the others concatenate.
// CHECK-LABEL: func.func @scan_dynamic_rows
// CHECK: %[[LOOP:.*]]:3 = torch.prim.Loop
// CHECK: ^bb0(%{{.*}}: !torch.int, %{{.*}}: !torch.vtensor<[?],f32>, %[[ROWS:.*]]: !torch.vtensor<[?,?],f32>, %[[STEP:.*]]: !torch.int):
// CHECK:   %[[ROW:.*]] = torch.tensor_static_info_cast %{{.*}} : !torch.vtensor<[1,?],f32> to !torch.vtensor<[?,?],f32>
// CHECK:   %[[FIRST:.*]] = torch.aten.eq.int %[[STEP]]
// CHECK:   %[[GROWN:.*]] = torch.prim.If %[[FIRST]] -> (!torch.vtensor<[?,?],f32>) {
// CHECK:     torch.prim.If.yield %[[ROW]]
// CHECK:   } else {
// CHECK:     torch.aten.cat
// CHECK:   torch.prim.Loop.condition %{{.*}}, iter(%{{.*}}, %[[GROWN]], %{{.*}} :
// CHECK: torch.tensor_static_info_cast %[[LOOP]]#1 : !torch.vtensor<[?,?],f32> to !torch.vtensor<[3,?],f32>
func.func @scan_dynamic_rows(%init: !torch.vtensor<[?],f32>, %x: !torch.vtensor<[3,?],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[3,?],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = torch.operator "onnx.Scan"(%init, %x) {torch.onnx.num_scan_inputs = 1 : si64} : (!torch.vtensor<[?],f32>, !torch.vtensor<[3,?],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[3,?],f32>) {
  ^bb0(%s: !torch.vtensor<[?],f32>, %xt: !torch.vtensor<[?],f32>):
    %1 = torch.operator "onnx.Add"(%s, %xt) : (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
    torch.operator_terminator %1, %1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[?],f32>, !torch.vtensor<[3,?],f32>
}

// -----

// Branches of different ranks on a run-time condition, the If's result declared with then_branch's
// rank (the second region: the torch-ONNX spelling puts else_branch first; the importer gives the
// result the one rank the rest of the graph takes, importer/if_ranks.py): that branch, inlined
// after a run-time check that the condition selects it.
// CHECK-LABEL: func.func @if_declared_rank
// CHECK-NOT: torch.prim.If
// CHECK: %[[FLAG:.*]] = torch.aten.item %{{.*}} : !torch.vtensor<[],i1> -> !torch.int
// CHECK: %[[THEN:.*]] = torch.aten.Bool.int %[[FLAG]] : !torch.int -> !torch.bool
// CHECK: torch.runtime.assert %[[THEN]], "If 'squeeze_if_one': the condition selects else_branch, whose output 0 has rank 3; the program was compiled for then_branch (rank 2), the only rank the rest of the graph takes"
// CHECK: return %arg1 : !torch.vtensor<[2,?],f32>
func.func @if_declared_rank(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[2,?],f32>, %y: !torch.vtensor<[2,?,1],f32>) -> !torch.vtensor<[2,?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.If"(%c) {onnx_node_name = "squeeze_if_one"} : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2,?],f32> {
    torch.operator_terminator %y : !torch.vtensor<[2,?,1],f32>
  }, {
    torch.operator_terminator %x : !torch.vtensor<[2,?],f32>
  }
  return %0 : !torch.vtensor<[2,?],f32>
}
