// The ONNX dialect spells ai.onnx.ml operators like default-domain ones: onnx.Binarizer converts
// as ai.onnx.ml's Binarizer (at the module's ai.onnx.ml opset).
// RUN: onnx-mlir-opt %s --convert-onnx-to-torch | FileCheck %s

module attributes {onnx.opset_import = {ai.onnx = 17 : i64, ai.onnx.ml = 3 : i64}} {
  // CHECK-LABEL: func.func @binarizer
  func.func @binarizer(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // CHECK: %[[THRESHOLD:.*]] = torch.constant.float 5.000000e-01
    // CHECK: torch.aten.gt.Scalar %{{.*}}, %[[THRESHOLD]] : !torch.vtensor<[4],f32>, !torch.float -> !torch.vtensor<[4],i1>
    // CHECK-NOT: onnx.Binarizer
    %0 = "onnx.Binarizer"(%arg0) {threshold = 5.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
