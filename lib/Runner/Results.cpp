//===- Results.cpp - Kernel arrays back to JSON -----------------------===//
//
// Part of ksc. Prints the arrays of a launch in the form ksc-run reads
// them: nested lists of numbers, vectors as lists, matrices as lists of
// rows, structs as objects, strided views as their whole buffer.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <charconv>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

template <typename T> static void writeFloat(raw_ostream &os, T value) {
  if (std::isnan(value)) {
    os << "\"nan\"";
    return;
  }
  if (std::isinf(value)) {
    os << (value < 0 ? "\"-inf\"" : "\"inf\"");
    return;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  (void)ec;
  os << StringRef(buffer, end - buffer);
}

template <typename T> static T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

static void writeScalar(raw_ostream &os, Scalar scalar, const uint8_t *p) {
  switch (scalar) {
  case Scalar::F32:
    writeFloat(os, load<float>(p));
    return;
  case Scalar::F64:
    writeFloat(os, load<double>(p));
    return;
  case Scalar::I32:
    os << load<int32_t>(p);
    return;
  case Scalar::U32:
    os << load<uint32_t>(p);
    return;
  case Scalar::I64:
    os << load<int64_t>(p);
    return;
  case Scalar::I1:
    os << (*p ? "true" : "false");
    return;
  }
}

/// Writes one value of type `type` stored at `p`.
static void writeValue(raw_ostream &os, const ValueType &type,
                       const uint8_t *p) {
  if (type.isStruct()) {
    os << "{";
    ListSeparator sep;
    for (const ValueType::Field &field : type.fields) {
      os << sep << json::Value(field.name) << ": ";
      writeValue(os, field.type, p + field.offset);
    }
    os << "}";
    return;
  }
  size_t scalarSize = getScalarSize(type.scalar);
  std::function<void(unsigned)> write = [&](unsigned depth) {
    if (depth == type.components.size()) {
      writeScalar(os, type.scalar, p);
      p += scalarSize;
      return;
    }
    os << "[";
    for (int64_t i = 0; i < type.components[depth]; ++i) {
      if (i)
        os << ", ";
      write(depth + 1);
    }
    os << "]";
  };
  write(0);
}

static void writeList(raw_ostream &os, ArrayRef<int64_t> values) {
  os << "[";
  llvm::interleave(values, os, ", ");
  os << "]";
}

void runner::writeArrays(raw_ostream &os, ArrayRef<Argument> args) {
  os << "{";
  ListSeparator sep(",");
  for (const Argument &arg : args) {
    if (!arg.param.isArray)
      continue;
    os << sep << "\n  " << json::Value(arg.param.name) << ": ";
    size_t size = arg.param.type.size();
    // A strided view prints its whole buffer, in the form it was given.
    if (!arg.strides.empty()) {
      os << "{\"data\": [";
      for (int64_t i = 0, e = arg.numStoredElements(); i < e; ++i) {
        if (i)
          os << ", ";
        writeValue(os, arg.param.type, arg.bytes.data() + size * i);
      }
      os << "], \"shape\": ";
      writeList(os, arg.shape);
      os << ", \"strides\": ";
      writeList(os, arg.strides);
      if (arg.offset)
        os << ", \"offset\": " << arg.offset;
      os << "}";
      continue;
    }
    int64_t index = 0;
    std::function<void(unsigned)> write = [&](unsigned depth) {
      if (depth == arg.shape.size()) {
        writeValue(os, arg.param.type, arg.bytes.data() + size * index++);
        return;
      }
      os << "[";
      for (int64_t i = 0; i < arg.shape[depth]; ++i) {
        if (i)
          os << ", ";
        write(depth + 1);
      }
      os << "]";
    };
    write(0);
  }
  os << "\n}\n";
}

std::string runner::formatValue(double value) {
  std::string text;
  raw_string_ostream(text) << format("%.6g", value);
  return text;
}
