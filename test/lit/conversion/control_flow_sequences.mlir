// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// A Loop that appends to a loop-carried sequence is unrolled (torch-mlir lowers no list carried by a
// torch.prim.Loop): each copy of the body appends to the previous copy's ListConstruct, so the
// sequence after the loop is one ListConstruct of the rows, and ConcatFromSequence stacks them.
// CHECK-LABEL: func.func @loop_appends
// CHECK-NOT: torch.prim.Loop
// CHECK: %[[ROW0:.*]] = torch.aten.reshape {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: torch.prim.ListConstruct %[[ROW0]] : (!torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
// CHECK: %[[ROW1:.*]] = torch.aten.reshape {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[ROWS:.*]] = torch.prim.ListConstruct %[[ROW0]], %[[ROW1]] : {{.*}} -> !torch.list<vtensor>
// CHECK: %[[Y:.*]] = torch.aten.stack %[[ROWS]], %{{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK-NOT: torch.aten.append.t
// CHECK: return %[[Y]]
func.func @loop_appends(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %m = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.SequenceInsert"(%rows, %1) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %2 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %3 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[2,3],f32>
  return %3 : !torch.vtensor<[2,3],f32>
}

// -----

// An If with a sequence output (a run-time condition): the If yields the sequence's elements, and
// the sequence is rebuilt after it (the torch-onnx spelling orders the regions else, then).
// CHECK-LABEL: func.func @if_sequence
// CHECK: %[[PAIR:.*]]:2 = torch.prim.If %{{.*}} -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
// CHECK:   %[[RELU:.*]] = torch.aten.relu %arg1
// CHECK:   torch.prim.If.yield %[[RELU]], %arg1
// CHECK: } else {
// CHECK:   %[[NEG:.*]] = torch.aten.neg %arg1
// CHECK:   torch.prim.If.yield %arg1, %[[NEG]]
// CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %[[PAIR]]#0, %[[PAIR]]#1 : {{.*}} -> !torch.list<vtensor>
// CHECK: torch.aten.cat %[[LIST]], %{{.*}} -> !torch.vtensor<[6],f32>

func.func @if_sequence(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[6],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.list<vtensor<[3],f32>> {
    %1 = torch.operator "onnx.Neg"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.SequenceConstruct"(%x, %1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %2 : !torch.list<vtensor<[3],f32>>
  }, {
    %1 = torch.operator "onnx.Relu"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.SequenceConstruct"(%1, %x) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %2 : !torch.list<vtensor<[3],f32>>
  }
  %3 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[6],f32>
  return %3 : !torch.vtensor<[6],f32>
}

// -----

// An If whose optional output only one branch holds (the torch-onnx spelling orders the regions
// else, then): the If yields the content, zeros in the empty branch, and OptionalHasElement is the
// condition itself.
// CHECK-LABEL: func.func @if_optional
// CHECK: %[[VALUE:.*]] = torch.prim.If %{{.*}} -> (!torch.vtensor<[3],f32>) {
// CHECK:   %[[SIGMOID:.*]] = torch.aten.sigmoid %arg1
// CHECK:   torch.prim.If.yield %[[SIGMOID]]
// CHECK: } else {
// CHECK:   %[[ZEROS:.*]] = torch.vtensor.literal(dense<0.000000e+00> : tensor<3xf32>)
// CHECK:   torch.prim.If.yield %[[ZEROS]]
// CHECK: return %arg0, %[[VALUE]]
func.func @if_optional(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[],i1>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = torch.operator "onnx.If"(%c) : (!torch.vtensor<[],i1>) -> !torch.optional<vtensor<[3],f32>> {
    %1 = torch.operator "onnx.Optional"() {torch.onnx.type = "tensor(float)"} : () -> !torch.optional<vtensor<[3],f32>>
    torch.operator_terminator %1 : !torch.optional<vtensor<[3],f32>>
  }, {
    %1 = torch.operator "onnx.Sigmoid"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.Optional"(%1) : (!torch.vtensor<[3],f32>) -> !torch.optional<vtensor<[3],f32>>
    torch.operator_terminator %2 : !torch.optional<vtensor<[3],f32>>
  }
  %3 = torch.operator "onnx.OptionalHasElement"(%0) : (!torch.optional<vtensor<[3],f32>>) -> !torch.vtensor<[],i1>
  %4 = torch.operator "onnx.OptionalGetElement"(%0) : (!torch.optional<vtensor<[3],f32>>) -> !torch.vtensor<[3],f32>
  return %3, %4 : !torch.vtensor<[],i1>, !torch.vtensor<[3],f32>
}
