// ai.onnx.ml ArrayFeatureExtractor and Binarizer (version 1).
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @array_feature_extractor
func.func @array_feature_extractor(%x: !torch.vtensor<[?,4],f32>, %y: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 5 : si64}} {
  // CHECK: %[[LAST:.*]] = torch.constant.int 1
  // CHECK: torch.aten.index_select %arg0, %[[LAST]], %arg1 : !torch.vtensor<[?,4],f32>, !torch.int, !torch.vtensor<[2],si64> -> !torch.vtensor<[?,2],f32>
  %0 = torch.operator "ai.onnx.ml.ArrayFeatureExtractor"(%x, %y) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,2],f32>
  return %0 : !torch.vtensor<[?,2],f32>
}

// -----

// A 1-D X gives one row, as in onnxruntime.
// CHECK-LABEL: func.func @array_feature_extractor_vector
func.func @array_feature_extractor_vector(%x: !torch.vtensor<[5],si64>, %y: !torch.vtensor<[1,3],si64>) -> !torch.vtensor<[1,3],si64> attributes {torch.onnx_meta.opset_version = 21 : si64, torch.onnx_meta.opset_versions = {ai.onnx.ml = 1 : si64}} {
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %arg1
  // CHECK: %[[PICKED:.*]] = torch.aten.index_select %arg0, %{{.*}}, %[[FLAT]] : !torch.vtensor<[5],si64>, !torch.int, !torch.vtensor<[3],si64> -> !torch.vtensor<[3],si64>
  // CHECK: torch.aten.unsqueeze %[[PICKED]], %{{.*}} : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[1,3],si64>
  %0 = torch.operator "ai.onnx.ml.ArrayFeatureExtractor"(%x, %y) : (!torch.vtensor<[5],si64>, !torch.vtensor<[1,3],si64>) -> !torch.vtensor<[1,3],si64>
  return %0 : !torch.vtensor<[1,3],si64>
}

// -----

// CHECK-LABEL: func.func @binarizer_onnx_dialect
module attributes {onnx.opset_version = 21 : i64, onnx.opset_versions = {ai.onnx.ml = 1 : i64}} {
  func.func @binarizer_onnx_dialect(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    // CHECK: %[[T:.*]] = torch.constant.float 5.000000e-01
    // CHECK: %[[ABOVE:.*]] = torch.aten.gt.Scalar %{{.*}}, %[[T]] : !torch.vtensor<[?,4],f32>, !torch.float -> !torch.vtensor<[?,4],i1>
    // CHECK: torch.aten.to.dtype %[[ABOVE]], {{.*}} -> !torch.vtensor<[?,4],f32>
    %0 = "onnx.Custom"(%x) {domain_name = "ai.onnx.ml", function_name = "Binarizer", threshold = 5.000000e-01 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}
