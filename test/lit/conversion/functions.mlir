// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// Swish (opset 24) has no pattern: its function body, with alpha bound from the node.
// CHECK-LABEL: func.func @swish
func.func @swish(%x: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  // CHECK: %[[ALPHA:.*]] = torch.vtensor.literal(dense<2.000000e+00> : tensor<f32>) : !torch.vtensor<[],f32>
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %[[ALPHA]], %arg0 : !torch.vtensor<[],f32>, !torch.vtensor<[3,?],f32> -> !torch.vtensor<[3,?],f32>
  // CHECK: %[[GATE:.*]] = torch.aten.sigmoid %[[SCALED]]
  // CHECK: %[[Y:.*]] = torch.aten.mul.Tensor %arg0, %[[GATE]]
  // CHECK: return %[[Y]]
  %0 = torch.operator "onnx.Swish"(%x) {torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3,?],f32>
  return %0 : !torch.vtensor<[3,?],f32>
}

// -----

// Shrink: lambd from the node, bias from the schema default (0), in the ONNX dialect spelling;
// -lambd, exact, folds to a literal.
// CHECK-LABEL: func.func @shrink
module attributes {onnx.opset_version = 18 : i64} {
  func.func @shrink(%x: tensor<5xf32>) -> tensor<5xf32> {
    // CHECK: %[[LAMBD:.*]] = torch.vtensor.literal(dense<1.500000e+00> : tensor<f32>)
    // CHECK: %[[BIAS:.*]] = torch.vtensor.literal(dense<0.000000e+00> : tensor<f32>)
    // CHECK: %[[NEGATIVE:.*]] = torch.vtensor.literal(dense<-1.500000e+00> : tensor<f32>)
    // CHECK: %[[BELOW:.*]] = torch.aten.lt.Tensor %{{.*}}, %[[NEGATIVE]]
    // CHECK: %[[RAISED:.*]] = torch.aten.add.Tensor %{{.*}}, %[[BIAS]]
    // CHECK: torch.aten.where.self %[[BELOW]], %[[RAISED]]
    %0 = "onnx.Shrink"(%x) {lambd = 1.500000e+00 : f32} : (tensor<5xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
}

// -----

// RMSNormalization (opset 23) has a context-dependent body, built for the input types; the
// axes it computes from Shape and Range fold to a literal, so ReduceMean reduces constant dims,
// dynamic sizes included.
// CHECK-LABEL: func.func @rms_normalization
func.func @rms_normalization(%x: !torch.vtensor<[?,?,4],f32>, %scale: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,4],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  // CHECK: %[[SQUARE:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %int1{{.*}}, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %[[SQUARE]], %[[DIMS]], %true, %none{{.*}} -> !torch.vtensor<[?,1,1],f32>
  // CHECK: %[[SHIFTED:.*]] = torch.aten.add.Tensor %[[MEAN]]
  // CHECK: %[[RMS:.*]] = torch.aten.sqrt %[[SHIFTED]]
  // CHECK: %[[NORMAL:.*]] = torch.aten.div.Tensor %arg0, %[[RMS]]
  // CHECK: %[[Y:.*]] = torch.aten.mul.Tensor %[[NORMAL]], %arg1 : !torch.vtensor<[?,?,4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[?,?,4],f32>
  // CHECK: return %[[Y]]
  %0 = torch.operator "onnx.RMSNormalization"(%x, %scale) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,?,4],f32>
  return %0 : !torch.vtensor<[?,?,4],f32>
}

// -----

// A function op with a pattern converts with the pattern, not its body.
// CHECK-LABEL: func.func @pattern_wins
func.func @pattern_wins(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: torch.aten.threshold %arg0
  // CHECK-NOT: torch.vtensor.literal
  %0 = torch.operator "onnx.ThresholdedRelu"(%x) {torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// A pattern wins over the function body: AffineGrid (whose body chooses between its 2-D and 3-D
// forms with an If on the rank of `size`) converts by its pattern in linear_algebra.py, no If inlined.
// CHECK-LABEL: func.func @affine_grid_3d
func.func @affine_grid_3d(%theta: !torch.vtensor<[2,3,4],f32>, %size: !torch.vtensor<[5],si64>) -> !torch.vtensor<[2,4,5,6,3],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK-NOT: torch.operator
  // CHECK: torch.aten.bmm
  // CHECK-NOT: torch.operator
  // CHECK: return
  %0 = torch.operator "onnx.AffineGrid"(%theta, %size) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5],si64>) -> !torch.vtensor<[2,4,5,6,3],f32>
  return %0 : !torch.vtensor<[2,4,5,6,3],f32>
}
