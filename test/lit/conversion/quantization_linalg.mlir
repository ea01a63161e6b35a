// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --convert-torch-to-linalg | FileCheck %s

// On Linalg, per-tensor int8/uint8 quantization stays integer: torch-mlir's fusion turns
// dequantize -> matmul/convolution into linalg.quantized_matmul / conv_2d_nchw_fchw_q (int32
// accumulators), and QLinearMatMul/QLinearConv use the same kernels (uint8 shifted to int8).

// A QDQ MatMul: x quantized and dequantized, an int8 weight dequantized, the product quantized.
// CHECK-LABEL: func.func @qdq_matmul
// CHECK: linalg.quantized_matmul ins(%{{.*}}, %arg1, %c10_i32, %c0_i32 : tensor<2x8xi8>, tensor<8x4xi8>, i32, i32) outs(%{{.*}} : tensor<2x4xi32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qdq_matmul(%x: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[8,4],si8>) -> !torch.vtensor<[2,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<10> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-4> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %7 = torch.operator "onnx.QuantizeLinear"(%x, %0, %1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],si8>
    %8 = torch.operator "onnx.DequantizeLinear"(%7, %0, %1) : (!torch.vtensor<[2,8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],f32>
    %9 = torch.operator "onnx.DequantizeLinear"(%w, %3, %4) : (!torch.vtensor<[8,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[8,4],f32>
    %10 = torch.operator "onnx.MatMul"(%8, %9) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[8,4],f32>) -> !torch.vtensor<[2,4],f32>
    %11 = torch.operator "onnx.QuantizeLinear"(%10, %5, %6) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,4],si8>
    return %11 : !torch.vtensor<[2,4],si8>
  }
}

// -----

// A QDQ Conv.
// CHECK-LABEL: func.func @qdq_conv
// CHECK: linalg.conv_2d_nchw_fchw_q {{.*}} ins(%{{.*}}, %arg1, %c10_i32, %c0_i32 : tensor<1x3x6x6xi8>, tensor<4x3x3x3xi8>, i32, i32) outs(%{{.*}} : tensor<1x4x4x4xi32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qdq_conv(%x: !torch.vtensor<[1,3,6,6],f32>, %w: !torch.vtensor<[4,3,3,3],si8>) -> !torch.vtensor<[1,4,4,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<10> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.500000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-4> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %7 = torch.operator "onnx.QuantizeLinear"(%x, %0, %1) : (!torch.vtensor<[1,3,6,6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,6,6],si8>
    %8 = torch.operator "onnx.DequantizeLinear"(%7, %0, %1) : (!torch.vtensor<[1,3,6,6],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,6,6],f32>
    %9 = torch.operator "onnx.DequantizeLinear"(%w, %3, %4) : (!torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[4,3,3,3],f32>
    %10 = torch.operator "onnx.Conv"(%8, %9) : (!torch.vtensor<[1,3,6,6],f32>, !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,4,4],f32>
    %11 = torch.operator "onnx.QuantizeLinear"(%10, %5, %6) : (!torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,4,4,4],si8>
    return %11 : !torch.vtensor<[1,4,4,4],si8>
  }
}

// -----

// A QDQ MatMul whose weight is quantized per channel: torch-mlir's fusion takes per-tensor
// quantization only, so the product stays in float32 on every backend.
// CHECK-LABEL: func.func @qdq_matmul_per_channel_weight
// CHECK-NOT: quantized_matmul
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<8x4xf32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qdq_matmul_per_channel_weight(%x: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[8,4],si8>, %ws: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<10> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<4xsi8>} : () -> !torch.vtensor<[4],si8>
    %7 = torch.operator "onnx.QuantizeLinear"(%x, %0, %1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],si8>
    %8 = torch.operator "onnx.DequantizeLinear"(%7, %0, %1) : (!torch.vtensor<[2,8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,8],f32>
    %9 = torch.operator "onnx.DequantizeLinear"(%w, %ws, %4) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[8,4],si8>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],si8>) -> !torch.vtensor<[8,4],f32>
    %10 = torch.operator "onnx.MatMul"(%8, %9) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[8,4],f32>) -> !torch.vtensor<[2,4],f32>
    return %10 : !torch.vtensor<[2,4],f32>
  }
}

// -----

// QLinearMatMul with literal zero points (uint8 activations, int8 weights).
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: linalg.quantized_matmul ins(%{{.*}}, %arg1, %c-123_i32, %c0_i32 : tensor<2x8xi8>, tensor<8x4xi8>, i32, i32) outs(%{{.*}} : tensor<2x4xi32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qlinear_matmul(%a: !torch.vtensor<[2,8],ui8>, %b: !torch.vtensor<[8,4],si8>) -> !torch.vtensor<[2,4],ui8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %3 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.300000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %4 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0.899999976> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %6 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<7> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %7 = torch.operator "onnx.QLinearMatMul"(%a, %0, %1, %b, %3, %4, %5, %6) : (!torch.vtensor<[2,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[8,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,4],ui8>
    return %7 : !torch.vtensor<[2,4],ui8>
  }
}

// -----

// QLinearConv with literal zero points and a per-channel weight scale, padded.
// CHECK-LABEL: func.func @qlinear_conv
// CHECK: linalg.conv_2d_nchw_fchw_q {{.*}} ins(%{{.*}}, %arg1, %c2_i32, %c0_i32 : tensor<1x2x7x7xi8>, tensor<3x2x3x3xi8>, i32, i32) outs(%{{.*}} : tensor<1x3x5x5xi32>)
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @qlinear_conv(%x: !torch.vtensor<[1,2,5,5],ui8>, %w: !torch.vtensor<[3,2,3,3],si8>) -> !torch.vtensor<[1,3,5,5],ui8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
    %xs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %xz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<130> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %ws = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[2.500000e-01, 1.250000e-01, 1.000000e+00]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %wz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %ys = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2.000000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %yz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<100> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
    %0 = torch.operator "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz) {torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,2,5,5],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3,2,3,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,3,5,5],ui8>
    return %0 : !torch.vtensor<[1,3,5,5],ui8>
  }
}
