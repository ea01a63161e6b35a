// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// DFT since 17: axis attribute; a real signal [1,4,1] -> [1,4,2]: cos and sin products.
// CHECK-LABEL: func.func @dft_axis_attribute
func.func @dft_axis_attribute(%x: !torch.vtensor<[?,4,1],f32>) -> !torch.vtensor<[?,4,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[REAL:.*]] = torch.aten.select.int %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,4,1],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
  // CHECK: %[[COS:.*]] = torch.vtensor.literal({{.*}}) : !torch.vtensor<[4,4],f32>
  // CHECK: torch.aten.matmul %[[REAL]], %[[COS]] : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4,4],f32> -> !torch.vtensor<[?,4],f32>
  // CHECK: torch.aten.cat %{{.*}}, %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,4,2],f32>
  %0 = torch.operator "onnx.DFT"(%x) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,4,1],f32>) -> !torch.vtensor<[?,4,2],f32>
  return %0 : !torch.vtensor<[?,4,2],f32>
}

// -----

// DFT since 20: axis as a literal input; onesided keeps bins 0..L/2 (dft_length 6 pads the 4 samples).
// CHECK-LABEL: func.func @dft_onesided_length
func.func @dft_onesided_length(%x: !torch.vtensor<[2,4,1],f32>) -> !torch.vtensor<[2,4,2],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: torch.vtensor.literal({{.*}}) : !torch.vtensor<[4,4],f32>
  // CHECK: torch.aten.matmul {{.*}} -> !torch.vtensor<[2,4],f32>
  %length = torch.vtensor.literal(dense<6> : tensor<si64>) : !torch.vtensor<[],si64>
  %axis = torch.vtensor.literal(dense<-2> : tensor<si64>) : !torch.vtensor<[],si64>
  %0 = torch.operator "onnx.DFT"(%x, %length, %axis) {torch.onnx.onesided = 1 : si64} : (!torch.vtensor<[2,4,1],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2,4,2],f32>
  return %0 : !torch.vtensor<[2,4,2],f32>
}

// -----

// DFT since 20 with a run-time axis: the axes that give the declared shape are computed and selected.
// CHECK-LABEL: func.func @dft_runtime_axis
func.func @dft_runtime_axis(%x: !torch.vtensor<[3,3,2],f32>, %axis: !torch.vtensor<[],si64>) -> !torch.vtensor<[3,3,2],f32> attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: torch.aten.eq.Scalar %arg1
  // CHECK: torch.aten.where.self {{.*}} -> !torch.vtensor<[3,3,2],f32>
  %none = torch.constant.none
  %0 = torch.operator "onnx.DFT"(%x, %none, %axis) {torch.onnx.inverse = 1 : si64} : (!torch.vtensor<[3,3,2],f32>, !torch.none, !torch.vtensor<[],si64>) -> !torch.vtensor<[3,3,2],f32>
  return %0 : !torch.vtensor<[3,3,2],f32>
}

// -----

// The onesided inverse (irfft): 3 bins of an even signal of length 4, a real result [.., 4, 1].
// CHECK-LABEL: func.func @dft_irfft_onnx_dialect
module attributes {onnx.opset_version = 20 : i64} {
  func.func @dft_irfft_onnx_dialect(%x: tensor<1x3x2xf32>) -> tensor<1x4x1xf32> {
    // CHECK: torch.aten.matmul {{.*}} : !torch.vtensor<[1,3],f32>, !torch.vtensor<[3,4],f32> -> !torch.vtensor<[1,4],f32>
    // CHECK: torch.aten.unsqueeze {{.*}} -> !torch.vtensor<[1,4,1],f32>
    // CHECK-NOT: torch.aten.cat
    %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.DFT"(%x, %none, %none) {inverse = 1 : si64, onesided = 1 : si64} : (tensor<1x3x2xf32>, none, none) -> tensor<1x4x1xf32>
    return %0 : tensor<1x4x1xf32>
  }
}

// -----

// STFT since 17: frames at constant positions (index_select), times the window, then the DFT.
// CHECK-LABEL: func.func @stft
func.func @stft(%signal: !torch.vtensor<[1,16,1],f32>, %window: !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,3,5,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: torch.aten.index_select %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[1,16,1],f32>, !torch.int, !torch.vtensor<[24],si64> -> !torch.vtensor<[1,24,1],f32>
  // CHECK: torch.aten.mul.Tensor {{.*}} -> !torch.vtensor<[1,3,8,1],f32>
  // CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[1,3,5,2],f32>
  %step = torch.vtensor.literal(dense<4> : tensor<si64>) : !torch.vtensor<[],si64>
  %none = torch.constant.none
  %0 = torch.operator "onnx.STFT"(%signal, %step, %window, %none) : (!torch.vtensor<[1,16,1],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[8],f32>, !torch.none) -> !torch.vtensor<[1,3,5,2],f32>
  return %0 : !torch.vtensor<[1,3,5,2],f32>
}
