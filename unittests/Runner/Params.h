//===- Params.h - Kernel parameters for the Runner tests ----*- C++ -*-===//
//
// Part of ksc. Shorthands the Runner unit tests build signatures with.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_UNITTESTS_RUNNER_PARAMS_H
#define KSC_UNITTESTS_RUNNER_PARAMS_H

#include "ksc/Runner/Runner.h"

namespace ksc::runner::test {

/// A scalar parameter `name` of type `type`.
inline Param scalar(const char *name, Scalar type) {
  Param p;
  p.name = name;
  p.type = ValueType::get(type);
  return p;
}

/// A 1-D array parameter `name` of elements of type `type`.
inline Param array(const char *name, Scalar type, bool isConst = false) {
  Param p = scalar(name, type);
  p.isArray = true;
  p.isConst = isConst;
  p.rank = 1;
  return p;
}

} // namespace ksc::runner::test

#endif // KSC_UNITTESTS_RUNNER_PARAMS_H
