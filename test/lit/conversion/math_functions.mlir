// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: torch.aten.erf
  // CHECK: torch.aten.sign
  // CHECK: torch.aten.sin
  // CHECK: torch.aten.cos
  // CHECK: torch.aten.tan
  // CHECK: torch.aten.asin
  // CHECK: torch.aten.acos
  // CHECK: torch.aten.atan
  // CHECK: torch.aten.sinh
  // CHECK: torch.aten.cosh
  // CHECK: torch.aten.asinh
  // CHECK: torch.aten.acosh
  // CHECK: torch.aten.atanh
  // CHECK: torch.aten.isnan
  %0 = torch.operator "onnx.Erf"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %1 = torch.operator "onnx.Sign"(%0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %2 = torch.operator "onnx.Sin"(%1) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %3 = torch.operator "onnx.Cos"(%2) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %4 = torch.operator "onnx.Tan"(%3) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %5 = torch.operator "onnx.Asin"(%4) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %6 = torch.operator "onnx.Acos"(%5) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %7 = torch.operator "onnx.Atan"(%6) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %8 = torch.operator "onnx.Sinh"(%7) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %9 = torch.operator "onnx.Cosh"(%8) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %10 = torch.operator "onnx.Asinh"(%9) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %11 = torch.operator "onnx.Acosh"(%10) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %12 = torch.operator "onnx.Atanh"(%11) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %13 = torch.operator "onnx.IsNaN"(%12) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %12, %13 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>
}

// -----

// CHECK-LABEL: func.func @is_inf
func.func @is_inf(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
  // CHECK: torch.aten.isinf %arg0
  // CHECK: torch.aten.isposinf %arg0
  // CHECK: torch.aten.isneginf %arg0
  %0 = torch.operator "onnx.IsInf"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  %1 = torch.operator "onnx.IsInf"(%x) {torch.onnx.detect_negative = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  %2 = torch.operator "onnx.IsInf"(%x) {torch.onnx.detect_positive = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],i1>
  return %0, %1, %2 : !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>
}

// -----

// Pow: the exponent takes the base's type; integer powers go through f64.
// CHECK-LABEL: func.func @pow
func.func @pow(%x: !torch.vtensor<[3],f32>, %y: !torch.vtensor<[3],si64>, %i: !torch.vtensor<[3],si32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si32>) attributes {torch.onnx_meta.opset_version = 15 : si64} {
  // CHECK: %[[Y:.*]] = torch.aten.to.dtype %arg1, {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: torch.aten.pow.Tensor_Tensor %arg0, %[[Y]] : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  // CHECK: torch.aten.pow.Tensor_Tensor {{.*}} -> !torch.vtensor<[3],f64>
  // CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[3],si32>
  %0 = torch.operator "onnx.Pow"(%x, %y) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32>
  %1 = torch.operator "onnx.Pow"(%i, %i) : (!torch.vtensor<[3],si32>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],si32>
  return %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],si32>
}

// -----

// CHECK-LABEL: func.func @mod
func.func @mod(%a: !torch.vtensor<[3],si32>, %b: !torch.vtensor<[3],si32>, %f: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: torch.aten.remainder.Tensor %arg0, %arg1
  // CHECK: torch.aten.fmod.Tensor %arg2, %arg2
  // CHECK: torch.aten.remainder.Tensor %arg2, %arg2
  %0 = torch.operator "onnx.Mod"(%a, %b) : (!torch.vtensor<[3],si32>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],si32>
  %1 = torch.operator "onnx.Mod"(%f, %f) {torch.onnx.fmod = 1 : si64} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %2 = torch.operator "onnx.Mod"(%f, %f) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0, %1, %2 : !torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// Clip at opset 6: bounds are attributes.
// CHECK-LABEL: func.func @clip_attributes
func.func @clip_attributes(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[NONE:.*]] = torch.constant.none
  // CHECK: %[[MAX:.*]] = torch.constant.float 2.000000e+00
  // CHECK: torch.aten.clamp %arg0, %[[NONE]], %[[MAX]]
  %0 = torch.operator "onnx.Clip"(%x) {torch.onnx.max = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Clip from opset 11: optional bound inputs.
// CHECK-LABEL: func.func @clip_inputs
func.func @clip_inputs(%x: !torch.vtensor<[3],f32>, %hi: !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = torch.constant.none
  // CHECK-NOT: torch.aten.maximum
  // CHECK: torch.aten.minimum %arg0, %arg1 : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
  %0 = torch.operator "onnx.Clip"(%x, %none, %hi) : (!torch.vtensor<[3],f32>, !torch.none, !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Variadic ops fold left to right with numpy broadcasting.
// CHECK-LABEL: func.func @variadic
func.func @variadic(%a: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[2,1],f32>, %c: !torch.vtensor<[],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[M:.*]] = torch.aten.maximum %arg0, %arg1 : !torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,3],f32>
  // CHECK: torch.aten.maximum %[[M]], %arg2 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32>
  // CHECK: torch.aten.minimum
  // CHECK: torch.aten.minimum
  // CHECK: torch.aten.add.Tensor
  // CHECK: torch.aten.add.Tensor
  // CHECK: torch.aten.add.Tensor
  // CHECK: %[[THREE:.*]] = torch.constant.int 3
  // CHECK: torch.aten.div.Scalar %{{.*}}, %[[THREE]]
  // CHECK: return {{.*}}, %arg0 :
  %0 = torch.operator "onnx.Max"(%a, %b, %c) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = torch.operator "onnx.Min"(%a, %b, %c) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32>
  %2 = torch.operator "onnx.Sum"(%a, %b) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,3],f32>
  %3 = torch.operator "onnx.Mean"(%a, %b, %c) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32>
  %4 = torch.operator "onnx.Max"(%a) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @where
func.func @where(%c: !torch.vtensor<[3],i1>, %x: !torch.vtensor<[3],f32>, %y: !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: torch.aten.where.self %arg0, %arg1, %arg2
  %0 = torch.operator "onnx.Where"(%c, %x, %y) : (!torch.vtensor<[3],i1>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Cast: `to` is an ONNX data type code (torch-ONNX) ...
// CHECK-LABEL: func.func @cast
func.func @cast(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  // CHECK: %[[INT32:.*]] = torch.constant.int 3
  // CHECK: %[[I:.*]] = torch.aten.to.dtype %arg0, %[[INT32]], %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3],si32>
  // CHECK: %[[FLOAT:.*]] = torch.constant.int 6
  // CHECK: torch.aten.to.dtype %[[I]], %[[FLOAT]]
  %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 6 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si32>
  %1 = torch.operator "onnx.CastLike"(%0, %x) : (!torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0, %1 : !torch.vtensor<[3],si32>, !torch.vtensor<[3],f32>
}

// -----

// ... or a type (ONNX dialect spelling).
// CHECK-LABEL: func.func @cast_onnx_dialect
// CHECK: %[[INT64:.*]] = torch.constant.int 4
// CHECK: torch.aten.to.dtype %{{.*}}, %[[INT64]], {{.*}} -> !torch.vtensor<[3],si64>
func.func @cast_onnx_dialect(%x: tensor<3xf32>) -> tensor<3xi64> {
  %0 = "onnx.Cast"(%x) {to = i64} : (tensor<3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// To float8 with `saturate` (the default): clamped to +-448 first, by maximum/minimum with the
// limit first (torch-mlir's Linalg lowering keeps NaN only as the second operand); a double goes
// through float32 first (as ONNX's reference rounds). With saturate = 0: a plain conversion.
// CHECK-LABEL: func.func @cast_to_float8
// CHECK: %[[F32:.*]] = torch.aten.to.dtype %arg0, %int6, {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[LOW:.*]] = torch.vtensor.literal(dense<-4.480000e+02> : tensor<f32>)
// CHECK: %[[ABOVE:.*]] = torch.aten.maximum %[[LOW]], %[[F32]]
// CHECK: %[[HIGH:.*]] = torch.vtensor.literal(dense<4.480000e+02> : tensor<f32>)
// CHECK: %[[CLAMPED:.*]] = torch.aten.minimum %[[HIGH]], %[[ABOVE]]
// CHECK: torch.aten.to.dtype %[[CLAMPED]], %int24, {{.*}} -> !torch.vtensor<[3],f8E4M3FN>
// CHECK-NOT: torch.aten.maximum
// CHECK: torch.aten.to.dtype %arg1, %int23, {{.*}} : !torch.vtensor<[3],f32>, {{.*}} -> !torch.vtensor<[3],f8E5M2>
func.func @cast_to_float8(%x: !torch.vtensor<[3],f64>, %y: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f8E4M3FN>, !torch.vtensor<[3],f8E5M2>) attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 17 : si64} : (!torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f8E4M3FN>
  %1 = torch.operator "onnx.Cast"(%y) {torch.onnx.to = 19 : si64, torch.onnx.saturate = 0 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f8E5M2>
  return %0, %1 : !torch.vtensor<[3],f8E4M3FN>, !torch.vtensor<[3],f8E5M2>
}

// -----

// A widened unsigned value goes through the next wider signed type and a mask: TOSA's
// lowering reads unsigned tensors as signed and would sign-extend 200 to -56. Without a
// target (Torch output, any consumer) the same.
// CHECK-LABEL: func.func @cast_from_uint8
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, %int2, {{.*}} -> !torch.vtensor<[3],si16>
// CHECK: %[[EXACT:.*]] = torch.aten.bitwise_and.Scalar %[[WIDE]], %int255 : !torch.vtensor<[3],si16>, !torch.int -> !torch.vtensor<[3],si16>
// CHECK: torch.aten.to.dtype %[[EXACT]], %int6, {{.*}} -> !torch.vtensor<[3],f32>
func.func @cast_from_uint8(%x: !torch.vtensor<[3],ui8>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 25 : si64} {
  %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[3],ui8>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Compiled for Linalg (or StableHLO), whose lowerings widen unsigned values exactly: a plain cast.
// CHECK-LABEL: func.func @cast_from_uint8_for_linalg
// CHECK-NOT: torch.aten.bitwise_and.Scalar
// CHECK: torch.aten.to.dtype %arg0, %int6, {{.*}} : !torch.vtensor<[3],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3],f32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @cast_from_uint8_for_linalg(%x: !torch.vtensor<[3],ui8>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 25 : si64} {
    %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[3],ui8>) -> !torch.vtensor<[3],f32>
    return %0 : !torch.vtensor<[3],f32>
  }
}

// -----

// To int2 (held in si8 by our importer): truncate to si64, wrap to [-2, 1] as ((v + 2) & 3) - 2.
// CHECK-LABEL: func.func @cast_to_int2
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, %int4, {{.*}} -> !torch.vtensor<[3],si64>
// CHECK: %[[SHIFTED:.*]] = torch.aten.add.Scalar %[[WIDE]], %int2, %int1
// CHECK: %[[LOW:.*]] = torch.aten.bitwise_and.Scalar %[[SHIFTED]], %int3
// CHECK: %[[WRAPPED:.*]] = torch.aten.sub.Scalar %[[LOW]], %int2{{.*}}, %int1
// CHECK: torch.aten.to.dtype %[[WRAPPED]], %int1{{.*}} -> !torch.vtensor<[3],si8>
func.func @cast_to_int2(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si8> attributes {torch.onnx_meta.opset_version = 25 : si64} {
  %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 26 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],si8>
  return %0 : !torch.vtensor<[3],si8>
}

// -----

// To uint2: v & 3.
// CHECK-LABEL: func.func @cast_to_uint2
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, %int4, {{.*}} -> !torch.vtensor<[3],si64>
// CHECK: %[[WRAPPED:.*]] = torch.aten.bitwise_and.Scalar %[[WIDE]], %int3
// CHECK: torch.aten.to.dtype %[[WRAPPED]], %int0, {{.*}} -> !torch.vtensor<[3],ui8>
func.func @cast_to_uint2(%x: !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],ui8> attributes {torch.onnx_meta.opset_version = 25 : si64} {
  %0 = torch.operator "onnx.Cast"(%x) {torch.onnx.to = 25 : si64} : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[3],ui8>
  return %0 : !torch.vtensor<[3],ui8>
}

// -----

// torch-mlir's TOSA lowering has no inverse or hyperbolic trigonometric functions: on TOSA they are
// written with exp, log, sqrt and atan.
// CHECK-LABEL: func.func @trigonometry_for_tosa
// CHECK-NOT: torch.aten.sinh
// CHECK-NOT: torch.aten.asin
// CHECK-NOT: torch.aten.acos
// CHECK: torch.aten.exp
// CHECK: torch.aten.sub.Tensor
// CHECK: torch.aten.atan
// CHECK: torch.aten.rsub.Scalar
// CHECK: torch.aten.log
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @trigonometry_for_tosa(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
    %0 = torch.operator "onnx.Sinh"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %1 = torch.operator "onnx.Acos"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.Atanh"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    return %0, %1, %2 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
  }
}

// -----

// CHECK-LABEL: func.func @trigonometry_for_linalg
// CHECK: torch.aten.sinh
// CHECK: torch.aten.acos
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @trigonometry_for_linalg(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 20 : si64} {
    %0 = torch.operator "onnx.Sinh"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    %1 = torch.operator "onnx.Acos"(%x) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
    return %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
  }
}

// -----

// On StableHLO and TOSA, Mod with fmod=0 is built from fmod: their lowerings of aten.remainder keep
// the dividend's sign for integers or give NaN over an infinite divisor.
// CHECK-LABEL: func.func @mod_for_stablehlo
// CHECK-NOT: torch.aten.remainder
// CHECK: %[[R:.*]] = torch.aten.fmod.Tensor %arg0, %arg1
// CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %[[R]], %arg1
// CHECK: torch.aten.where.self {{.*}}, %[[SUM]], %[[R]]
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @mod_for_stablehlo(%x: !torch.vtensor<[4],si32>, %y: !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.Mod"(%x, %y) : (!torch.vtensor<[4],si32>, !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],si32>
    return %0 : !torch.vtensor<[4],si32>
  }
}

// -----

// Float Mod on TOSA compares with f32 literals (inf, 0): aten.isinf and scalar comparisons became
// float64 comparisons there, which no TOSA profile (and not IREE) takes.
// CHECK-LABEL: func.func @float_mod_for_tosa
// CHECK-NOT: torch.aten.isinf
// CHECK-NOT: torch.aten.lt.Scalar
// CHECK: torch.vtensor.literal(dense<0x7F800000> : tensor<f32>)
// CHECK: torch.aten.lt.Tensor
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @float_mod_for_tosa(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.Mod"(%x, %y) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    return %0 : !torch.vtensor<[4],f32>
  }
}
