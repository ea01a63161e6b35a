// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// CHECK: error: node 'forever' (Loop, domain 'ai.onnx', opset 17): a Loop with neither a trip count nor a condition never ends
func.func @loop_forever(%v0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %0 = torch.operator "onnx.Loop"(%none, %none, %v0) {onnx_node_name = "forever"} : (!torch.none, !torch.none, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %v: !torch.vtensor<[2],f32>):
    torch.operator_terminator %cond, %v : !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>
  }
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// CHECK: error: node 'run_time_rows' (Loop, domain 'ai.onnx', opset 17): on tosa this Loop is a while loop, and its scan outputs grow by a row per iteration: a carried tensor whose size changes at run time, which torch-mlir's TOSA lowering cannot take (a trip count known at conversion time unrolls the loop, also a condition that counts to a length fixed with --dim NAME=SIZE; a scan output whose declared type fixes its length is written in place)
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @loop_run_time_scan_output_for_tosa(%m: !torch.vtensor<[],si64>, %v0: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %none = torch.constant.none
    %0:2 = torch.operator "onnx.Loop"(%m, %none, %v0) {onnx_node_name = "run_time_rows"} : (!torch.vtensor<[],si64>, !torch.none, !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>) {
    ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %v: !torch.vtensor<[2],f32>):
      torch.operator_terminator %cond, %v, %v : !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
    }
    return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[?,2],f32>
  }
}

// -----

// CHECK: error: node 'dynamic_rows' (Scan, domain 'ai.onnx', opset 8): scan output 1 has per-iteration dims not known at conversion time (!torch.vtensor<[?],f32>); Scan-8 with a batch of more than one entry needs them
func.func @scan8_dynamic_rows(%init: !torch.vtensor<[2,?],f32>, %x: !torch.vtensor<[2,3,?],f32>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,3,?],f32>) attributes {torch.onnx_meta.opset_version = 8 : si64} {
  %none = torch.constant.none
  %0:2 = torch.operator "onnx.Scan"(%none, %init, %x) {onnx_node_name = "dynamic_rows", torch.onnx.num_scan_inputs = 1 : si64} : (!torch.none, !torch.vtensor<[2,?],f32>, !torch.vtensor<[2,3,?],f32>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,3,?],f32>) {
  ^bb0(%s: !torch.vtensor<[?],f32>, %xt: !torch.vtensor<[?],f32>):
    %1 = torch.operator "onnx.Add"(%s, %xt) : (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
    torch.operator_terminator %1, %1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[2,?],f32>, !torch.vtensor<[2,3,?],f32>
}

// -----

// Branches of different ranks on a run-time condition (an If the importer's shape values could not
// decide: silero-vad's `x.squeeze(-1)` when a dynamic dim is 1): the error names the way out.
// CHECK: error: node 'squeeze_if_one' (If, domain 'ai.onnx', opset 17): output 0 has different ranks (2, 3), which torch cannot carry; the condition is known only at run time (fixing the dynamic dims it reads with --dim or --input-shape can decide it at import)
func.func @if_branch_ranks(%c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[2,?],f32>, %y: !torch.vtensor<[2,?,1],f32>) -> !torch.vtensor<*,f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.If"(%c) {onnx_node_name = "squeeze_if_one"} : (!torch.vtensor<[],i1>) -> !torch.vtensor<*,f32> {
    torch.operator_terminator %y : !torch.vtensor<[2,?,1],f32>
  }, {
    torch.operator_terminator %x : !torch.vtensor<[2,?],f32>
  }
  return %0 : !torch.vtensor<*,f32>
}
