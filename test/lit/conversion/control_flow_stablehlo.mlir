// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-control-flow-to-stablehlo --convert-torch-to-stablehlo | FileCheck %s

// Run-time control flow on StableHLO (transforms/torch/control_flow.py): torch.prim.If and
// torch.prim.Loop become stablehlo.if and stablehlo.while before torch-mlir's pipeline lowers the
// ops inside them.

// An If whose branches differ in shape ([2,3] and [4,3]) on a run-time condition: stablehlo.if on
// the tensor<i1>, each branch's value cast to the joined [?,3].
// CHECK-LABEL: func.func @if_branch_shapes
// CHECK: %[[IF:.*]] = "stablehlo.if"(%arg0) ({
// CHECK:   stablehlo.maximum
// CHECK:   %[[T:.*]] = tensor.cast %{{.*}} : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK:   stablehlo.return %[[T]] : tensor<?x3xf32>
// CHECK: }, {
// CHECK:   stablehlo.concatenate
// CHECK:   %[[E:.*]] = tensor.cast %{{.*}} : tensor<4x3xf32> to tensor<?x3xf32>
// CHECK:   stablehlo.return %[[E]] : tensor<?x3xf32>
// CHECK: }) : (tensor<i1>) -> tensor<?x3xf32>
// CHECK: return %[[IF]]
module attributes {onnx_torch_mlir.target = "stablehlo"} {
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
}

// -----

// A Loop with a run-time trip count and a condition the body computes: a stablehlo.while carrying
// the condition (tensor<i1>), the loop-carried value and the iteration number (tensor<i64>); the
// loop goes on while `cond and i + 1 < M`.
// CHECK-LABEL: func.func @loop_while_like
// CHECK: %[[LOOP:.*]]:3 = stablehlo.while(%[[GO:.*]] = %{{.*}}, %[[V:.*]] = %arg2, %[[I:.*]] = %{{.*}}) : tensor<i1>, tensor<f32>, tensor<i64>
// CHECK: cond {
// CHECK:   stablehlo.return %[[GO]] : tensor<i1>
// CHECK: } do {
// CHECK:   %[[NEW:.*]] = stablehlo.add %[[V]], %[[V]] : tensor<f32>
// CHECK:   %[[LESS:.*]] = stablehlo.compare LT, %[[NEW]], %arg2
// CHECK:   %[[NEXT:.*]] = stablehlo.add %[[I]], %{{.*}} : tensor<i64>
// CHECK:   %[[BOUND:.*]] = stablehlo.compare LT, %[[NEXT]], %arg0
// CHECK:   %[[KEEP:.*]] = stablehlo.and %[[LESS]], %[[BOUND]] : tensor<i1>
// CHECK:   stablehlo.return %[[KEEP]], %[[NEW]], %[[NEXT]] : tensor<i1>, tensor<f32>, tensor<i64>
// CHECK: return %[[LOOP]]#1
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @loop_while_like(%m: !torch.vtensor<[],si64>, %c: !torch.vtensor<[],i1>, %v0: !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.Loop"(%m, %c, %v0) : (!torch.vtensor<[],si64>, !torch.vtensor<[],i1>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> {
    ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %v: !torch.vtensor<[],f32>):
      %1 = torch.operator "onnx.Add"(%v, %v) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
      %2 = torch.operator "onnx.Less"(%1, %v0) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],i1>
      torch.operator_terminator %2, %1 : !torch.vtensor<[],i1>, !torch.vtensor<[],f32>
    }
    return %0 : !torch.vtensor<[],f32>
  }
}
