// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch-pipeline --step quantization-markers-as-custom-ops --convert-torch-to-tosa --step quantized-regions-as-integer | FileCheck %s

// On TOSA, int8 per-tensor quantization stays integer: tosa.matmul / tosa.conv2d on int8 with
// zero points, int32 accumulators (TOSA reads uint8 as int8: QLinear* shift uint8 operands to int8,
// a uint8 QDQ graph stays float).

// A QDQ MatMul: x quantized and dequantized, an int8 weight dequantized, the product quantized.
// CHECK-LABEL: func.func @qdq_matmul
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x8xi8>, tensor<1x8x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
// CHECK-NEXT: tosa.const{{.*}}dense<{{[0-9]+}}> : tensor<1xi32>
// CHECK: tosa.rescale {{.*}}per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true{{.*}} -> tensor<1x2x4xi8>
// CHECK-NOT: xf32>
// CHECK: return {{.*}} : tensor<2x4xi8>
module attributes {onnx_torch_mlir.target = "tosa"} {
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

// A QDQ Conv: requantized by one tosa.rescale (transforms/tosa/quantized_regions/), no float op
// after the input's QuantizeLinear.
// CHECK-LABEL: func.func @qdq_conv
// CHECK: tosa.conv2d {{.*}} : (tensor<1x6x6x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x4xi32>
// CHECK: tosa.rescale {{.*}} -> tensor<1x4x4x4xi8>
// CHECK-NOT: xf32>
// CHECK: return
module attributes {onnx_torch_mlir.target = "tosa"} {
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

// A QDQ Conv with literal per-channel weights, an int32 bias and a Relu between two quantizations:
// int8 convolution, one rescale per output channel (on NHWC, before torch-mlir's transpose back),
// the Relu an int8 clamp at the zero point.
// CHECK-LABEL: func.func @qdq_conv_per_channel_relu
// CHECK: tosa.conv2d {{.*}} : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32>
// CHECK: tosa.const{{.*}}dense<{{[0-9]+}}> : tensor<3xi32>
// CHECK: tosa.const{{.*}}dense<[38, 37, 36]> : tensor<3xi8>
// CHECK: tosa.rescale {{.*}}per_channel = true{{.*}} -> tensor<1x4x4x3xi8>
// CHECK: tosa.transpose {{.*}} -> tensor<1x3x4x4xi8>
// CHECK: tosa.clamp {{.*}}max_val = 127 : i8, min_val = 3 : i8{{.*}} -> tensor<1x3x4x4xi8>
// CHECK-NOT: xf32>
// CHECK: return {{.*}} : tensor<1x3x4x4xi8>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @qdq_conv_per_channel_relu(%x: !torch.vtensor<[1,2,4,4],f32>) -> !torch.vtensor<[1,3,4,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
    %xs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5.000000e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %xz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %w = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[[[[1]], [[-2]]], [[[3]], [[4]]], [[[-5]], [[6]]]]> : tensor<3x2x1x1xsi8>} : () -> !torch.vtensor<[3,2,1,1],si8>
    %ws = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.000000e-02, 2.000000e-02, 4.000000e-02]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %wz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<3xsi8>} : () -> !torch.vtensor<[3],si8>
    %b = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[100, -200, 300]> : tensor<3xsi32>} : () -> !torch.vtensor<[3],si32>
    %bs = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[5.000000e-04, 1.000000e-03, 2.000000e-03]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
    %bz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<3xsi32>} : () -> !torch.vtensor<[3],si32>
    %ys = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %yz = torch.operator "onnx.Constant"() {torch.onnx.value = dense<3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    %0 = torch.operator "onnx.QuantizeLinear"(%x, %xs, %xz) : (!torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,2,4,4],si8>
    %1 = torch.operator "onnx.DequantizeLinear"(%0, %xs, %xz) : (!torch.vtensor<[1,2,4,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,2,4,4],f32>
    %2 = torch.operator "onnx.DequantizeLinear"(%w, %ws, %wz) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2,1,1],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[3,2,1,1],f32>
    %3 = torch.operator "onnx.DequantizeLinear"(%b, %bs, %bz) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],f32>
    %4 = torch.operator "onnx.Conv"(%1, %2, %3) : (!torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[3,2,1,1],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,3,4,4],f32>
    %5 = torch.operator "onnx.QuantizeLinear"(%4, %ys, %yz) : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,4,4],si8>
    %6 = torch.operator "onnx.DequantizeLinear"(%5, %ys, %yz) : (!torch.vtensor<[1,3,4,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,4,4],f32>
    %7 = torch.operator "onnx.Relu"(%6) : (!torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32>
    %8 = torch.operator "onnx.QuantizeLinear"(%7, %ys, %yz) : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,3,4,4],si8>
    return %8 : !torch.vtensor<[1,3,4,4],si8>
  }
}

// -----

// A QDQ MatMul whose weight scales are a run-time input: no marker (the scales are not literals),
// so the product stays in float32.
// CHECK-LABEL: func.func @qdq_matmul_per_channel_weight
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
module attributes {onnx_torch_mlir.target = "tosa"} {
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
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x8xi8>, tensor<1x8x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
module attributes {onnx_torch_mlir.target = "tosa"} {
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
// CHECK: tosa.conv2d {{.*}} : (tensor<1x7x7x2xi8>, tensor<3x3x3x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x5x3xi32>
module attributes {onnx_torch_mlir.target = "tosa"} {
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
