// IR the C++ emitter cannot print is an error at the operation, and no
// output is written.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: ksc %t/op.mlir --verify-diagnostics
// RUN: ksc %t/type.mlir --verify-diagnostics
// RUN: ksc %t/declaration.mlir --verify-diagnostics
// RUN: ksc %t/name.mlir --verify-diagnostics
// RUN: not ksc %t/op.mlir -o %t/op.cpp
// RUN: not test -e %t/op.cpp

//--- op.mlir
ks.func @count_zeros(%x: i32) -> i32 {
  // expected-error@+1 {{cannot emit 'math.ctlz' as C++ (not supported by the C++ emitter)}}
  %0 = math.ctlz %x : i32
  ks.return %0 : i32
}

//--- type.mlir
ks.func @half(%x: f32) -> f32 {
  // expected-error@+1 {{type 'f16' is not supported by the C++ emitter}}
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.extf %0 : f16 to f32
  ks.return %1 : f32
}

//--- declaration.mlir
// expected-error@+1 {{cannot emit a function declaration as C++}}
func.func private @external(f32) -> f32

//--- name.mlir
// expected-error@+1 {{function name 'not.an.identifier' is not a C++ identifier}}
ks.func @"not.an.identifier"(%x: f32) -> f32 {
  ks.return %x : f32
}
