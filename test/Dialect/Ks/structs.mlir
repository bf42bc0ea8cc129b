// RUN: ksc-opt %s | ksc-opt | FileCheck %s
// RUN: ksc-opt %s --mlir-print-op-generic | ksc-opt | FileCheck %s
// RUN: ksc-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// Structs round-trip: the type with its name and fields, and the three
// operations on struct values.

// CHECK-LABEL: ks.func @fields(
// CHECK-SAME:      %[[P:.*]]: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, %[[M:.*]]: f32)
// CHECK-NEXT:    %[[POS:.*]] = ks.struct_extract %[[P]][0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> -> vector<3xf32>
// CHECK-NEXT:    %[[Q:.*]] = ks.struct_insert %[[M]], %[[P]][1] : f32 into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
// CHECK-NEXT:    %[[R:.*]] = ks.struct_make %[[POS]], %[[M]] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
ks.func @fields(%p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, %m: f32)
    -> !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> {
  %pos = ks.struct_extract %p[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> -> vector<3xf32>
  %q = ks.struct_insert %m, %p[1] : f32 into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
  %r = ks.struct_make %pos, %m : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
  %s = ks.struct_extract %q[0] : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32> -> vector<3xf32>
  %t = ks.struct_insert %s, %r[0] : vector<3xf32> into !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
  ks.return %t : !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>
}

// Nested structs, uint32_t fields (read as i32), arrays of structs, and
// field names that must be quoted.
// CHECK-LABEL: ks.kernel @nested(
// CHECK-SAME:      %{{.*}}: !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64>, 2>)
// CHECK:         ks.struct_extract %{{.*}}[1] : !ks.struct<"Body", {{.*}}> -> i32
ks.kernel @nested(%a: !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64>, 2>) {
  %i = ks.tid : i32
  %b = ks.load %a[%i, %i] : !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64>, 2>, i32, i32
  %id = ks.struct_extract %b[1] : !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64> -> i32
  %c = ks.struct_insert %id, %b[1] : i32 into !ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64>
  ks.store %c, %a[%i, %i] : !ks.array<!ks.struct<"Body", p: !ks.struct<"Particle", pos: vector<3xf32>, mass: f32>, id: ui32, "i32": i64>, 2>, i32, i32
  ks.return
}

// A field read from a struct just built or with that field just replaced
// folds to the value written; one read through the replacement of another
// field does not (it would keep the older struct alive).
// CANON-LABEL: ks.func @folds(
// CANON-SAME:      %[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32)
// CANON-NEXT:    %[[S:.*]] = arith.addf %[[C]], %[[A]] : f32
// CANON-NEXT:    ks.return %[[S]] : f32
ks.func @folds(%a: f32, %b: f32, %c: f32) -> f32 {
  %s = ks.struct_make %a, %b : !ks.struct<"Pair", first: f32, second: f32>
  %x = ks.struct_extract %s[0] : !ks.struct<"Pair", first: f32, second: f32> -> f32
  %t = ks.struct_insert %c, %s[1] : f32 into !ks.struct<"Pair", first: f32, second: f32>
  %y = ks.struct_extract %t[1] : !ks.struct<"Pair", first: f32, second: f32> -> f32
  %r = arith.addf %y, %x : f32
  ks.return %r : f32
}

// CANON-LABEL: ks.func @no_fold_through_other_fields(
// CANON-SAME:      %[[P:.*]]: !ks.struct<"Pair", first: f32, second: f32>, %[[C:.*]]: f32)
// CANON-NEXT:    %[[T:.*]] = ks.struct_insert %[[C]], %[[P]][1]
// CANON-NEXT:    %[[X:.*]] = ks.struct_extract %[[T]][0]
ks.func @no_fold_through_other_fields(%p: !ks.struct<"Pair", first: f32, second: f32>, %c: f32) -> f32 {
  %t = ks.struct_insert %c, %p[1] : f32 into !ks.struct<"Pair", first: f32, second: f32>
  %x = ks.struct_extract %t[0] : !ks.struct<"Pair", first: f32, second: f32> -> f32
  ks.return %x : f32
}

// Writing back the field just read changes nothing; a write of a field
// right before another write of it is dropped.
// CANON-LABEL: ks.func @write_back(
// CANON-SAME:      %[[P:.*]]: !ks.struct<"Pair", first: f32, second: f32>)
// CANON-NEXT:    ks.return %[[P]]
ks.func @write_back(%p: !ks.struct<"Pair", first: f32, second: f32>) -> !ks.struct<"Pair", first: f32, second: f32> {
  %x = ks.struct_extract %p[1] : !ks.struct<"Pair", first: f32, second: f32> -> f32
  %same = ks.struct_insert %x, %p[1] : f32 into !ks.struct<"Pair", first: f32, second: f32>
  ks.return %same : !ks.struct<"Pair", first: f32, second: f32>
}

// CANON-LABEL: ks.func @overwritten(
// CANON-SAME:      %[[P:.*]]: !ks.struct<"Pair", first: f32, second: f32>, %[[A:.*]]: f32, %[[B:.*]]: f32)
// CANON-NEXT:    %[[T:.*]] = ks.struct_insert %[[B]], %[[P]][0]
// CANON-NEXT:    ks.return %[[T]]
ks.func @overwritten(%p: !ks.struct<"Pair", first: f32, second: f32>, %a: f32, %b: f32) -> !ks.struct<"Pair", first: f32, second: f32> {
  %t = ks.struct_insert %a, %p[0] : f32 into !ks.struct<"Pair", first: f32, second: f32>
  %u = ks.struct_insert %b, %t[0] : f32 into !ks.struct<"Pair", first: f32, second: f32>
  ks.return %u : !ks.struct<"Pair", first: f32, second: f32>
}
