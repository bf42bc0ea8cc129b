// RUN: ksc-opt %s --convert-ks-to-cpu -split-input-file -verify-diagnostics

// `launch_<kernel>` is the name of the launcher of each kernel; another
// symbol of that name is an error, whatever it is.

// expected-error@+1 {{the name 'launch_k' is reserved for the launcher of kernel 'k'}}
ks.func @launch_k(%v: f32) -> f32 {
  ks.return %v : f32
}

ks.kernel @k(%y: !ks.array<f32>) {
  ks.return
}

// -----

ks.kernel @k(%y: !ks.array<f32>) {
  ks.return
}

// The clashing kernel comes after the kernel it clashes with.
// expected-error@+1 {{the name 'launch_k' is reserved for the launcher of kernel 'k'}}
ks.kernel @launch_k(%y: !ks.array<f32>) {
  ks.return
}

// -----

// expected-error@+1 {{the name 'launch_k' is reserved for the launcher of kernel 'k'}}
func.func private @launch_k()

ks.kernel @k(%y: !ks.array<f32>) {
  ks.return
}

// -----

// Every clash is reported, not only the first.

// expected-error@+1 {{the name 'launch_a' is reserved for the launcher of kernel 'a'}}
ks.func @launch_a() {
  ks.return
}
// expected-error@+1 {{the name 'launch_b' is reserved for the launcher of kernel 'b'}}
ks.func @launch_b() {
  ks.return
}
ks.kernel @a() {
  ks.return
}
ks.kernel @b() {
  ks.return
}
