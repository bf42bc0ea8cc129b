// ks IR, as `ksc --emit=mlir` writes it: ksc and ksc-run accept it as input.
module {
  ks.func @twice(%v: i32) -> i32 {
    %0 = arith.addi %v, %v : i32
    ks.return %0 : i32
  }
  ks.kernel @fill(%v: i32, %y: !ks.array<i32>) {
    %i = ks.tid : i32
    %0 = ks.call @twice(%v) : (i32) -> i32
    ks.store %0, %y[%i] : !ks.array<i32>, i32
    ks.return
  }
}
