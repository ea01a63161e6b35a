// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-tosa | FileCheck %s --check-prefix=TOSA

// For tosa, a dilated MaxPool too large to unroll whose strides are multiples of its dilations is a
// pool without dilation over every dilation-th element of the padded input.
// CHECK-LABEL: func.func @dilated_max_pool_for_tosa
// CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd {{.*}} -> !torch.vtensor<[1,1,2200],f32>
// CHECK: %[[PHASE:.*]] = torch.aten.slice.Tensor %[[PADDED]], {{.*}} -> !torch.vtensor<[1,1,220],f32>
// CHECK: torch.aten.max_pool1d %[[PHASE]], {{.*}} -> !torch.vtensor<[1,1,21],f32>
// TOSA-LABEL: func.func @dilated_max_pool_for_tosa
// TOSA: tosa.max_pool2d {{.*}}kernel = array<i64: 200, 1>{{.*}} stride = array<i64: 1, 1>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @dilated_max_pool_for_tosa(%x: !torch.vtensor<[1,1,2000],f32>) -> !torch.vtensor<[1,1,21],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
    %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [200 : si64], torch.onnx.strides = [10 : si64], torch.onnx.dilations = [10 : si64], torch.onnx.pads = [100 : si64, 100 : si64]} : (!torch.vtensor<[1,1,2000],f32>) -> !torch.vtensor<[1,1,21],f32>
    return %0 : !torch.vtensor<[1,1,21],f32>
  }
}
