// Input of builder-order.test: calls the lint plugin must report (a
// stand-in for MLIR's builder and ksc's random-number generator; the plugin
// knows mlir::OpBuilder and ksc::SplitMix64 by name).
namespace ksc {
class SplitMix64 {
public:
  unsigned long next();
};
} // namespace ksc
struct Rng {
  ksc::SplitMix64 bits;
  bool chance(unsigned percent);
  unsigned below(unsigned n);
};
void ifStmt(unsigned branches, bool forceElse);
namespace mlir {
struct Value {};
struct Location {};
class OpBuilder {
public:
  Value create(int kind);
  Location getLoc();
};
class RewriterBase : public OpBuilder {};
} // namespace mlir

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;

struct AddOp {
  static Value create(OpBuilder &b, Value x, Value y);
};
Value zero(OpBuilder &b);
Value pure(Value x);
struct Math {
  OpBuilder &b;
  Value mul(Value x, Value y);
  Value lookup(Value x) const;
  Location where();
};
struct Context {
  OpBuilder &b;
};
Value resultOf(const Context &ctx);
Value built(Context &ctx);
struct Pair {
  Pair(Value a, Value b);
};

void cases(OpBuilder &b, mlir::RewriterBase &rewriter, Math &m, Context &ctx,
           Rng &rng, Value x) {
  // expected-error@+1 {{2 arguments of this call build IR or draw random numbers}}
  AddOp::create(b, zero(b), zero(b)); // expected-note 2 {{this argument builds IR or draws}}
  // expected-error@+1 {{2 arguments of this call build IR or draw random numbers}}
  m.mul(m.mul(x, x), b.create(1)); // expected-note 2 {{this argument builds IR or draws}}
  // A lambda that captures the builder builds.
  auto one = [&] { return zero(b); };
  // expected-error@+1 {{2 arguments of this call build IR or draw random numbers}}
  pure(m.mul(one(), zero(rewriter))); // expected-note 2 {{this argument builds IR or draws}}
  // A parenthesized constructor call is unsequenced too.
  // expected-error@+1 {{2 arguments of this call build IR or draw random numbers}}
  Pair(built(ctx), m.mul(x, x)); // expected-note 2 {{this argument builds IR or draws}}
  // Random draws: ksc-synth's kernels depend on their order.
  // expected-error@+1 {{2 arguments of this call build IR or draw random numbers}}
  ifStmt(rng.below(3), rng.chance(50)); // expected-note 2 {{this argument builds IR or draws}}

  // Not reported: one building argument; lookups (const methods, const
  // contexts, locations); braced lists, which are evaluated in order; the
  // bodies of lambdas given as arguments.
  m.mul(x, zero(b));
  m.mul(m.lookup(x), resultOf(ctx));
  AddOp::create(b, m.mul(x, x), x);
  (void)m.where();
  Pair{zero(b), zero(b)};
  Value first = zero(b);
  Value second = zero(b);
  m.mul(first, second);
  bool forceElse = rng.chance(50);
  ifStmt(rng.below(3), forceElse);
  auto later = [&](Value v) { return m.mul(zero(b), zero(b)); }; // expected-error {{2 arguments}} expected-note 2 {{this argument}}
  pure(later(x));
}
