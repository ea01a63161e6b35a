// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-control-flow-to-tosa --convert-torch-to-tosa | FileCheck %s

// Run-time control flow on TOSA (transforms/torch/control_flow.py): torch.prim.If and
// torch.prim.Loop become tosa.cond_if and tosa.while_loop before torch-mlir's pipeline lowers the
// ops inside them.

// An If whose branches differ in shape ([2,3] and [4,3]) on a run-time condition.
// CHECK-LABEL: func.func @if_branch_shapes
// CHECK: %[[IF:.*]] = tosa.cond_if %arg0 : tensor<i1> -> tensor<?x3xf32> {
// CHECK:   tosa.clamp
// CHECK:   %[[T:.*]] = tensor.cast %{{.*}} : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK:   tosa.yield %[[T]] : tensor<?x3xf32>
// CHECK: } else {
// CHECK:   tosa.concat
// CHECK:   %[[E:.*]] = tensor.cast %{{.*}} : tensor<4x3xf32> to tensor<?x3xf32>
// CHECK:   tosa.yield %[[E]] : tensor<?x3xf32>
// CHECK: }
// CHECK: return %[[IF]]
module attributes {onnx_torch_mlir.target = "tosa"} {
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

// A Loop with a run-time trip count and a condition the body computes: a tosa.while_loop carrying
// the condition, the loop-carried value and the iteration number; the body yields
// `cond and i + 1 < M` as the next condition.
// CHECK-LABEL: func.func @loop_while_like
// CHECK: %[[LOOP:.*]]:3 = tosa.while_loop (%{{.*}} = %{{.*}}, %{{.*}} = %arg2, %{{.*}} = %{{.*}}) : (tensor<i1>, tensor<f32>, tensor<i64>) -> (tensor<i1>, tensor<f32>, tensor<i64>) {
// CHECK:   tosa.yield %{{.*}} : tensor<i1>
// CHECK: } do {
// CHECK:   tosa.add
// CHECK:   tosa.greater
// CHECK:   tosa.logical_and
// CHECK:   tosa.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<f32>, tensor<i64>
// CHECK: return %[[LOOP]]#1
module attributes {onnx_torch_mlir.target = "tosa"} {
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

// -----

// TF's while_loop as tf2onnx writes it: no trip count, the body yields `float(i + 1) < float(n)`
// with the counter `i` carried and `n` passed on unchanged. With `n` a literal the loop runs 3
// times, known at conversion time (control_flow/trip_count.py): unrolled, its scan output the
// three rows stacked, no tosa.while_loop.
// CHECK-LABEL: func.func @counted_while_loop
// CHECK-COUNT-3: tosa.add
// CHECK-NOT: tosa.while_loop
// CHECK: %[[ROWS:.*]] = tosa.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i32} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
// CHECK-NOT: tosa.while_loop
// CHECK: return %{{.*}}, %[[ROWS]]
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @counted_while_loop(%h0: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>) attributes {torch.onnx_meta.opset_version = 15 : si64} {
    %none = torch.constant.none
    %zero = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si32>} : () -> !torch.vtensor<[],si32>
    %n = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si32>} : () -> !torch.vtensor<[],si32>
    %start = torch.operator "onnx.Constant"() {torch.onnx.value = dense<true> : tensor<i1>} : () -> !torch.vtensor<[],i1>
    %0:4 = torch.operator "onnx.Loop"(%none, %start, %zero, %h0, %n) : (!torch.none, !torch.vtensor<[],i1>, !torch.vtensor<[],si32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],si32>) -> (!torch.vtensor<[],si32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],si32>, !torch.vtensor<[?,2],f32>) {
    ^bb0(%iteration: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %i: !torch.vtensor<[],si32>, %h: !torch.vtensor<[2],f32>, %limit: !torch.vtensor<[],si32>):
      %one = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si32>} : () -> !torch.vtensor<[],si32>
      %next = torch.operator "onnx.Add"(%i, %one) : (!torch.vtensor<[],si32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[],si32>
      %doubled = torch.operator "onnx.Add"(%h, %h) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
      %fi = torch.operator "onnx.Cast"(%next) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[],si32>) -> !torch.vtensor<[],f32>
      %fn = torch.operator "onnx.Cast"(%limit) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[],si32>) -> !torch.vtensor<[],f32>
      %more = torch.operator "onnx.Less"(%fi, %fn) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],i1>
      torch.operator_terminator %more, %next, %doubled, %limit, %doubled : !torch.vtensor<[],i1>, !torch.vtensor<[],si32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],si32>, !torch.vtensor<[2],f32>
    }
    return %0#1, %0#3 : !torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>
  }
}
