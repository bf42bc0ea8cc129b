//===- ksc_python.h - Python modules of ksc kernels ---------*- C++ -*-===//
//
// Part of ksc. What every Python extension module `ksc --emit=python` writes
// shares (docs/python.md): the tables that describe its kernels' parameters,
// and the one function that turns the Python objects of a call into the
// arguments of a kernel's C entry point, checking each against the
// parameter it is for, and launches it. Built with nanobind; arrays come in
// through DLPack or the buffer protocol, without a copy.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_PYTHON_H
#define KSC_PYTHON_H

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "ksc_runtime.h"

// JAX: the kernels are also XLA FFI handlers when jaxlib's headers are on the
// include path (`jax.ffi.include_dir()`).
#if !defined(KSC_PYTHON_JAX) && defined(__has_include)
#if __has_include("xla/ffi/api/ffi.h")
#define KSC_PYTHON_JAX 1
#endif
#endif
#ifdef KSC_PYTHON_JAX
#include "xla/ffi/api/ffi.h"
#endif

// CUDA modules (ksc --target=cuda --emit=python) are compiled by nvcc.
#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace ksc::python {

namespace nb = nanobind;

/// The scalar types of kernel parameters and array elements.
enum class scalar : uint8_t { f32, f64, boolean, i32, u32, i64 };

/// One parameter of a kernel: a scalar, vector or matrix passed by value
/// (`rank` 0), or an array of `rank` dimensions of them.
struct param {
  const char *name;
  scalar type;
  uint8_t rank;
  /// An array the kernel may write (not `array<const T>`).
  bool writable;
  /// The shape of a vector or matrix element: {} for a scalar, {3} for a
  /// vec3, {3, 3} for a mat33; `num_components` of `components` are used.
  uint8_t num_components;
  uint8_t components[2];
};

/// What a kernel of the module is.
enum class kernel_kind : uint8_t { primal, adjoint, tangent, hvp };

/// A kernel's C entry point (the CPU's `ksc_launch_K`, docs/build.md).
using cpu_entry = int (*)(const int64_t *dim, void *const *args, char *error,
                          size_t error_size);
/// A CUDA kernel's C entry point (`ksc_cuda_launch_K`): the same, on a
/// stream of the current device.
using cuda_entry = int (*)(const int64_t *dim, void *stream, void *const *args,
                           char *error, size_t error_size);

/// One kernel of the module.
struct kernel {
  const char *name;
  const param *params;
  uint32_t num_params;
  kernel_kind kind;
  /// For a derivative kernel: the kernel it differentiates, the number of
  /// that kernel's parameters (the first ones of this kernel), and for each
  /// further parameter the primal parameter it is the derivative of.
  const char *primal;
  uint32_t num_primal;
  const int32_t *primal_of;
  /// The primal arrays an adjoint reads as the kernel left them
  /// (`ks.final_value_args`: atomic_min and atomic_max).
  const int32_t *final_value_args;
  uint32_t num_final_value_args;
  /// The directions of a tangent kernel (`--width`).
  uint32_t width;
  /// The entry point: one of the two, by the module's target.
  cpu_entry cpu;
  cuda_entry cuda;
};

/// What a scalar type is: its name, in NumPy's spelling (what messages and
/// `__ksc_kernels__` say), and its DLPack element type.
struct scalar_info {
  const char *name;
  nb::dlpack::dtype_code code;
  uint8_t bits;
};

/// The table of the scalar types, in the order of `scalar`'s enumerators.
inline const scalar_info &info(scalar type) {
  using code = nb::dlpack::dtype_code;
  static const scalar_info table[] = {
      {"float32", code::Float, 32}, {"float64", code::Float, 64},
      {"bool", code::Bool, 8},      {"int32", code::Int, 32},
      {"uint32", code::UInt, 32},   {"int64", code::Int, 64}};
  return table[static_cast<int>(type)];
}

inline const char *scalar_name(scalar type) { return info(type).name; }

inline size_t scalar_size(scalar type) { return info(type).bits / 8; }

inline nb::dlpack::dtype scalar_dtype(scalar type) {
  nb::dlpack::dtype dtype;
  dtype.code = static_cast<uint8_t>(info(type).code);
  dtype.bits = info(type).bits;
  dtype.lanes = 1;
  return dtype;
}

/// The name of a DLPack element type, for messages ("float64", "int8").
inline std::string dtype_name(nb::dlpack::dtype dtype) {
  const char *code = "?";
  switch (static_cast<nb::dlpack::dtype_code>(dtype.code)) {
  case nb::dlpack::dtype_code::Int:
    code = "int";
    break;
  case nb::dlpack::dtype_code::UInt:
    code = "uint";
    break;
  case nb::dlpack::dtype_code::Float:
    code = "float";
    break;
  case nb::dlpack::dtype_code::Bfloat:
    code = "bfloat";
    break;
  case nb::dlpack::dtype_code::Complex:
    code = "complex";
    break;
  case nb::dlpack::dtype_code::Bool:
    return "bool";
  }
  std::string name = code + std::to_string(dtype.bits);
  if (dtype.lanes != 1)
    name += "x" + std::to_string(dtype.lanes);
  return name;
}

/// The element type of `p` as the kernel language writes it
/// ("float", "vec3", "mat33d"), for messages.
inline std::string element_name(const param &p) {
  std::string text = scalar_name(p.type);
  for (unsigned i = 0; i < p.num_components; ++i)
    text += (i ? "x" : "[") + std::to_string(p.components[i]);
  return p.num_components ? text + "]" : text;
}

/// The Python-facing shape of one element of `p` ("(3,)" or "()").
inline std::string element_shape(const param &p) {
  if (!p.num_components)
    return "()";
  std::string text = "(" + std::to_string(p.components[0]);
  if (p.num_components == 2)
    text += ", " + std::to_string(p.components[1]);
  return text + (p.num_components == 1 ? ",)" : ")");
}

/// An error of the call of kernel `k` about parameter `p`, as Python's
/// TypeError or ValueError.
[[noreturn]] inline void fail(bool type_error, const kernel &k, const param &p,
                              const std::string &message) {
  std::string text =
      std::string(k.name) + "(): argument '" + p.name + "' " + message;
  if (type_error)
    throw nb::type_error(text.c_str());
  throw nb::value_error(text.c_str());
}

/// The storage of one call's arguments: the C entry point takes a pointer
/// per argument, to a scalar's bytes or to an array's descriptor.
struct call_args {
  std::vector<ksc_array_desc> arrays;
  std::vector<uint64_t> scalars; // 16 words per scalar argument
  std::vector<void *> pointers;
  /// Arrays that keep the buffers they view alive during the launch.
  std::vector<nb::ndarray<nb::ro>> views;
};

/// Stores `value` as scalar `type` into `out`; false if it is not a number
/// of that kind (a float for an integer parameter, say).
inline bool store_number(nb::handle value, scalar type, void *out) {
  switch (type) {
  case scalar::f32: {
    double v;
    if (!nb::try_cast(value, v, false) && !nb::try_cast(value, v, true))
      return false;
    float f = static_cast<float>(v);
    std::memcpy(out, &f, sizeof f);
    return true;
  }
  case scalar::f64: {
    double v;
    if (!nb::try_cast(value, v, false) && !nb::try_cast(value, v, true))
      return false;
    std::memcpy(out, &v, sizeof v);
    return true;
  }
  case scalar::boolean: {
    bool v;
    if (!nb::try_cast(value, v, false))
      return false;
    std::memcpy(out, &v, sizeof v);
    return true;
  }
  case scalar::i32:
  case scalar::u32:
  case scalar::i64: {
    if (PyFloat_Check(value.ptr()) || PyBool_Check(value.ptr()))
      return false;
    int64_t v;
    if (!nb::try_cast(value, v, false)) {
      if (!PyIndex_Check(value.ptr()))
        return false;
      nb::object index = nb::steal(PyNumber_Index(value.ptr()));
      if (!index.is_valid()) {
        PyErr_Clear();
        return false;
      }
      if (!nb::try_cast(index, v, false))
        return false;
    }
    bool fits = type == scalar::i64 ||
                (type == scalar::i32 ? v >= INT32_MIN && v <= INT32_MAX
                                     : v >= 0 && v <= UINT32_MAX);
    if (!fits)
      return false;
    if (type == scalar::i64) {
      std::memcpy(out, &v, sizeof v);
    } else if (type == scalar::i32) {
      int32_t w = static_cast<int32_t>(v);
      std::memcpy(out, &w, sizeof w);
    } else {
      uint32_t w = static_cast<uint32_t>(v);
      std::memcpy(out, &w, sizeof w);
    }
    return true;
  }
  }
  return false;
}

/// A scalar, vector or matrix argument: a number, or a sequence of
/// `components[0]` numbers (of that many sequences of `components[1]` for
/// a matrix, or one flat sequence of all of them).
inline void convert_scalar(const kernel &k, const param &p, nb::handle value,
                           void *out) {
  size_t size = scalar_size(p.type);
  if (p.num_components == 0) {
    if (!store_number(value, p.type, out))
      fail(true, k, p,
           std::string(p.type == scalar::boolean
                           ? "must be a bool (True or False)"
                           : "must be a number of type ") +
               (p.type == scalar::boolean ? "" : scalar_name(p.type)) +
               ", got " + nb::inst_name(value).c_str() + " " +
               nb::repr(value).c_str());
    return;
  }
  size_t count =
      p.components[0] * (p.num_components == 2 ? p.components[1] : 1);
  std::vector<nb::handle> numbers;
  auto flatten = [&](nb::handle sequence, auto &self, int depth) -> bool {
    if (!PySequence_Check(sequence.ptr()) || PyUnicode_Check(sequence.ptr()))
      return false;
    nb::object seq = nb::borrow(sequence);
    Py_ssize_t n = PySequence_Size(seq.ptr());
    if (n < 0) {
      PyErr_Clear();
      return false;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      nb::object item = nb::steal(PySequence_GetItem(seq.ptr(), i));
      if (!item.is_valid()) {
        PyErr_Clear();
        return false;
      }
      if (depth > 0 && PySequence_Check(item.ptr()) &&
          !PyUnicode_Check(item.ptr())) {
        if (!self(item, self, depth - 1))
          return false;
      } else {
        numbers.push_back(item.release());
      }
    }
    return true;
  };
  bool ok =
      flatten(value, flatten, p.num_components - 1) && numbers.size() == count;
  for (size_t i = 0; ok && i < count; ++i)
    ok = store_number(numbers[i], p.type, static_cast<char *>(out) + i * size);
  for (nb::handle number : numbers)
    number.dec_ref();
  if (!ok)
    fail(true, k, p,
         "must be a sequence of " + std::to_string(count) +
             " numbers of type " + scalar_name(p.type) + " (a " +
             element_name(p) + "), got " + nb::inst_name(value).c_str());
}

/// An array argument: checks its element type, device, dimensions and
/// strides against `p` and describes it in `desc`.
inline void convert_array(const kernel &k, const param &p, nb::handle value,
                          int device_type, int &device_id, call_args &storage,
                          ksc_array_desc &desc) {
  // One import of the array (DLPack or the buffer protocol), writable
  // where the kernel writes it; a second one only to explain a failure.
  nb::ndarray<nb::ro> array;
  nb::ndarray<> writable;
  if (p.writable && nb::try_cast(value, writable, false))
    array = nb::ndarray<nb::ro>(writable);
  else if (!nb::try_cast(value, array, false))
    fail(true, k, p,
         std::string("must be an array (a NumPy array, or one that supports "
                     "DLPack or the buffer protocol: PyTorch, JAX, CuPy), "
                     "got ") +
             nb::inst_name(value).c_str());
  else if (p.writable)
    fail(false, k, p, "is read-only, but the kernel writes it");
  if (array.dtype() != scalar_dtype(p.type))
    fail(true, k, p,
         std::string("must have dtype ") + scalar_name(p.type) + ", got " +
             dtype_name(array.dtype()));
  if (array.device_type() != device_type) {
    const char *where = device_type == nb::device::cpu::value
                            ? "CPU memory (this module was built for the CPU)"
                            : "CUDA device memory (this module was built for "
                              "CUDA)";
    fail(false, k, p, std::string("must be in ") + where);
  }
  if (device_id < 0)
    device_id = array.device_id();
  else if (array.device_id() != device_id)
    fail(false, k, p,
         "is on device " + std::to_string(array.device_id()) +
             ", the arrays before it on device " + std::to_string(device_id));
  size_t ndim = p.rank + p.num_components;
  auto shape_text = [&] {
    std::string text = "(";
    for (size_t i = 0; i < array.ndim(); ++i)
      text += (i ? ", " : "") + std::to_string(array.shape(i));
    return text + (array.ndim() == 1 ? ",)" : ")");
  };
  if (array.ndim() != ndim)
    fail(false, k, p,
         "must have " + std::to_string(ndim) +
             (ndim == 1 ? " dimension" : " dimensions") +
             (p.num_components
                  ? " (a " + std::to_string(p.rank) + "-D array of " +
                        element_name(p) + " elements, the element shape " +
                        element_shape(p) + " last)"
                  : std::string()) +
             ", got shape " + shape_text());
  // A vector's or matrix's components must be contiguous, as the kernel's
  // element type lays them out.
  int64_t element = 1;
  for (unsigned i = p.num_components; i-- > 0;) {
    size_t dim = p.rank + i;
    if (array.shape(dim) != p.components[i])
      fail(false, k, p,
           "must end in the element shape " + element_shape(p) +
               ", got shape " + shape_text());
    if (array.stride(dim) != element)
      fail(false, k, p,
           "must have contiguous " + element_name(p) +
               " elements (a vector's or matrix's components next to each "
               "other)");
    element *= p.components[i];
  }
  desc = {};
  desc.data = const_cast<void *>(array.data());
  desc.rank = p.rank;
  for (size_t d = 0; d < p.rank; ++d) {
    int64_t stride = array.stride(d);
    if (stride % element != 0)
      fail(false, k, p,
           "has a stride that is not a whole number of " + element_name(p) +
               " elements");
    if (p.writable && stride == 0 && array.shape(d) > 1)
      fail(false, k, p,
           "is written by the kernel, but it has a zero stride (a "
           "broadcast view): copy it first");
    desc.shape[d] = array.shape(d);
    desc.strides[d] = stride / element;
  }
  storage.views.push_back(std::move(array));
}

/// The launch grid: `dim` (an int or a sequence of 1 to 3 ints), or
/// without it the shape of the first array the kernel writes (of the first
/// array when it writes none), up to 3 dimensions.
inline void launch_grid(const kernel &k, nb::handle dim,
                        const call_args &storage,
                        const std::vector<int> &array_of_param,
                        int64_t grid[3]) {
  grid[0] = grid[1] = grid[2] = 1;
  if (!dim.is_none()) {
    std::vector<int64_t> extents;
    auto extent = [&](nb::handle value) {
      int64_t n;
      if (PyBool_Check(value.ptr()) || !nb::try_cast(value, n, false))
        return false;
      extents.push_back(n);
      return true;
    };
    bool ok = extent(dim);
    if (!ok && PySequence_Check(dim.ptr()) && !PyUnicode_Check(dim.ptr())) {
      Py_ssize_t n = PySequence_Size(dim.ptr());
      ok = n >= 1 && n <= 3;
      for (Py_ssize_t i = 0; ok && i < n; ++i) {
        nb::object item = nb::steal(PySequence_GetItem(dim.ptr(), i));
        ok = item.is_valid() && extent(item);
      }
      if (PyErr_Occurred())
        PyErr_Clear();
    }
    if (!ok)
      throw nb::type_error((std::string(k.name) +
                            "(): dim must be an int or a sequence of 1 to 3 "
                            "ints")
                               .c_str());
    for (size_t i = 0; i < extents.size(); ++i) {
      if (extents[i] < 0)
        throw nb::value_error(
            (std::string(k.name) + "(): dim must not be negative").c_str());
      grid[i] = extents[i];
    }
    return;
  }
  int chosen = -1;
  for (int pass = 0; pass < 2 && chosen < 0; ++pass)
    for (uint32_t i = 0; i < k.num_params && chosen < 0; ++i)
      if (k.params[i].rank && (pass == 1 || k.params[i].writable))
        chosen = static_cast<int>(i);
  if (chosen < 0)
    throw nb::type_error((std::string(k.name) +
                          "(): the kernel takes no array, so dim= must give "
                          "the launch grid")
                             .c_str());
  const param &p = k.params[chosen];
  if (p.rank > 3)
    throw nb::type_error((std::string(k.name) +
                          "(): the launch grid cannot "
                          "be taken from the 4-D array '" +
                          p.name + "': give dim=")
                             .c_str());
  const ksc_array_desc &desc = storage.arrays[array_of_param[chosen]];
  for (int64_t d = 0; d < desc.rank; ++d)
    grid[d] = desc.shape[d];
}

/// The CUDA stream of a call: None for the default stream (0), an int (a
/// `cudaStream_t`), or an object with one as `cuda_stream` (PyTorch's
/// streams) or `ptr` (CuPy's).
inline void *cuda_stream(const kernel &k, nb::handle stream) {
  if (stream.is_none())
    return nullptr;
  if (!k.cuda)
    throw nb::type_error((std::string(k.name) +
                          "(): stream= is for modules of CUDA kernels; this "
                          "one runs them on the CPU")
                             .c_str());
  nb::handle handle = stream;
  nb::object attribute;
  for (const char *name : {"cuda_stream", "ptr"})
    if (nb::hasattr(stream, name)) {
      attribute = stream.attr(name);
      handle = attribute;
      break;
    }
  uintptr_t value;
  if (PyBool_Check(handle.ptr()) || !nb::try_cast(handle, value, false))
    throw nb::type_error((std::string(k.name) +
                          "(): stream must be None, a cudaStream_t as an "
                          "int, or a stream object of PyTorch or CuPy")
                             .c_str());
  return reinterpret_cast<void *>(value);
}

/// Runs `k`'s entry point on `grid` with the arguments in `storage`, on
/// CUDA device `device_id` and `stream` for a CUDA kernel. Returns its
/// status, with a message in `error`.
inline int call_entry(const kernel &k, const int64_t grid[3],
                      call_args &storage, int device_id, void *stream,
                      char *error, size_t error_size) {
  if (k.cpu)
    return k.cpu(grid, storage.pointers.data(), error, error_size);
#ifdef __CUDACC__
  int previous = -1;
  if (device_id >= 0 && cudaGetDevice(&previous) == cudaSuccess &&
      previous != device_id && cudaSetDevice(device_id) != cudaSuccess) {
    std::snprintf(error, error_size,
                  "kernel '%s': cannot make device %d "
                  "current",
                  k.name, device_id);
    return 1;
  }
  int status = k.cuda(grid, stream, storage.pointers.data(), error, error_size);
  if (previous >= 0 && previous != device_id)
    cudaSetDevice(previous);
  return status;
#else
  (void)device_id;
  return k.cuda(grid, stream, storage.pointers.data(), error, error_size);
#endif
}

/// Calls kernel `k` with the Python objects `args` (one per parameter) on
/// the launch grid `dim` (None: see launch_grid) and, for a CUDA kernel,
/// on `stream` (see cuda_stream).
inline void launch(const kernel &k, std::initializer_list<nb::handle> args,
                   nb::handle dim, nb::handle stream = nb::none()) {
  void *stream_pointer = cuda_stream(k, stream);
  int device_type = k.cuda ? nb::device::cuda::value : nb::device::cpu::value;
  int device_id = -1;
  call_args storage;
  std::vector<int> array_of_param(k.num_params, -1);
  size_t num_arrays = 0;
  for (uint32_t i = 0; i < k.num_params; ++i)
    if (k.params[i].rank)
      array_of_param[i] = static_cast<int>(num_arrays++);
  storage.arrays.resize(num_arrays);
  storage.scalars.resize(16 * (k.num_params - num_arrays));
  size_t next_scalar = 0;
  const nb::handle *values = args.begin();
  for (uint32_t i = 0; i < k.num_params; ++i) {
    const param &p = k.params[i];
    if (p.rank) {
      ksc_array_desc &desc = storage.arrays[array_of_param[i]];
      convert_array(k, p, values[i], device_type, device_id, storage, desc);
      storage.pointers.push_back(&desc);
    } else {
      void *out = &storage.scalars[16 * next_scalar++];
      convert_scalar(k, p, values[i], out);
      storage.pointers.push_back(out);
    }
  }
  int64_t grid[3];
  launch_grid(k, dim, storage, array_of_param, grid);
  char error[1024] = "";
  int status;
  {
    nb::gil_scoped_release release;
    status = call_entry(k, grid, storage, device_id, stream_pointer, error,
                        sizeof error);
  }
  if (status != 0)
    throw std::runtime_error(error);
}

/// Adds to `result` the description of the module's kernels that ksc.torch and
/// ksc.jax read
/// (`module.__ksc_kernels__`): for each kernel its parameters, what it is,
/// and for derivative kernels how their parameters map to the primal ones.
inline void describe(nb::dict result, const kernel *kernels, size_t count,
                     const char *target) {
  static const char *const kinds[] = {"primal", "adjoint", "tangent", "hvp"};
  for (size_t i = 0; i < count; ++i) {
    const kernel &k = kernels[i];
    nb::list params;
    for (uint32_t j = 0; j < k.num_params; ++j) {
      const param &p = k.params[j];
      nb::list components;
      for (unsigned c = 0; c < p.num_components; ++c)
        components.append(p.components[c]);
      nb::dict entry;
      entry["name"] = p.name;
      entry["dtype"] = scalar_name(p.type);
      entry["rank"] = p.rank;
      entry["writable"] = p.writable;
      entry["element_shape"] = nb::tuple(components);
      params.append(entry);
    }
    nb::dict info;
    info["params"] = params;
    info["kind"] = kinds[static_cast<int>(k.kind)];
    info["target"] = target;
    if (k.primal) {
      nb::list primal_of, final_values;
      for (uint32_t j = 0; j + k.num_primal < k.num_params; ++j)
        primal_of.append(k.primal_of[j]);
      for (uint32_t j = 0; j < k.num_final_value_args; ++j)
        final_values.append(k.final_value_args[j]);
      info["primal"] = k.primal;
      info["num_primal"] = k.num_primal;
      info["primal_of"] = nb::tuple(primal_of);
      info["final_value_args"] = nb::tuple(final_values);
      info["width"] = k.width;
    }
    result[k.name] = info;
  }
}

#ifdef KSC_PYTHON_JAX
namespace ffi = xla::ffi;

inline ffi::DataType ffi_dtype(scalar type) {
  switch (type) {
  case scalar::f32:
    return ffi::DataType::F32;
  case scalar::f64:
    return ffi::DataType::F64;
  case scalar::boolean:
    return ffi::DataType::PRED;
  case scalar::i32:
    return ffi::DataType::S32;
  case scalar::u32:
    return ffi::DataType::U32;
  case scalar::i64:
    return ffi::DataType::S64;
  }
  return ffi::DataType::INVALID;
}

/// A launch of kernel `k` as an XLA custom call (ksc.jax): one operand per
/// parameter (scalars as buffers of their element shape), one result per
/// array the kernel writes, which starts as a copy of its operand (or is
/// the operand, aliased), and the launch grid as the attribute `dim`.
inline ffi::Error ffi_launch(const kernel &k, ffi::RemainingArgs args,
                             ffi::RemainingRets rets,
                             ffi::Span<const int64_t> dim) {
  auto error = [&](const std::string &message) {
    return ffi::Error::InvalidArgument(std::string(k.name) + ": " + message);
  };
  if (args.size() != k.num_params)
    return error("expected " + std::to_string(k.num_params) +
                 " operands, got " + std::to_string(args.size()));
  if (dim.size() < 1 || dim.size() > 3)
    return error("the attribute dim must have 1 to 3 extents");
  std::vector<ksc_array_desc> arrays(k.num_params);
  std::vector<void *> pointers(k.num_params);
  size_t next_result = 0;
  for (uint32_t i = 0; i < k.num_params; ++i) {
    const param &p = k.params[i];
    ffi::ErrorOr<ffi::AnyBuffer> operand = args.get<ffi::AnyBuffer>(i);
    if (operand.has_error())
      return operand.error();
    ffi::AnyBuffer buffer = operand.value();
    std::string where = std::string("operand '") + p.name + "'";
    if (buffer.element_type() != ffi_dtype(p.type))
      return error(where + " must have dtype " + scalar_name(p.type));
    auto dims = buffer.dimensions();
    if (dims.size() != static_cast<size_t>(p.rank + p.num_components))
      return error(where + " has the wrong number of dimensions");
    for (unsigned c = 0; c < p.num_components; ++c)
      if (dims[p.rank + c] != p.components[c])
        return error(where + " must end in the element shape " +
                     element_shape(p));
    void *data = buffer.untyped_data();
    if (p.rank && p.writable) {
      if (next_result >= rets.size())
        return error("too few results");
      auto result = rets.get<ffi::AnyBuffer>(next_result++);
      if (result.has_error())
        return result.error();
      ffi::AnyBuffer out = *result.value();
      if (out.size_bytes() != buffer.size_bytes() ||
          out.element_type() != buffer.element_type())
        return error("the result for '" + std::string(p.name) +
                     "' does not match its operand");
      if (out.untyped_data() != data && buffer.size_bytes())
        std::memcpy(out.untyped_data(), data, buffer.size_bytes());
      data = out.untyped_data();
    }
    if (!p.rank) {
      pointers[i] = data;
      continue;
    }
    ksc_array_desc &desc = arrays[i];
    desc = {};
    desc.data = data;
    desc.rank = p.rank;
    int64_t stride = 1;
    for (unsigned d = p.rank; d-- > 0;) {
      desc.shape[d] = dims[d];
      desc.strides[d] = stride;
      stride *= dims[d];
    }
    pointers[i] = &desc;
  }
  if (next_result != rets.size())
    return error("expected " + std::to_string(next_result) + " results, got " +
                 std::to_string(rets.size()));
  int64_t grid[3] = {1, 1, 1};
  for (size_t d = 0; d < dim.size(); ++d)
    grid[d] = dim[d];
  char message[1024] = "";
  if (k.cpu(grid, pointers.data(), message, sizeof message) != 0)
    return ffi::Error::Internal(message);
  return ffi::Error::Success();
}

/// The XLA FFI handler of kernel `k` (kept for the process's lifetime, as
/// XLA keeps the function it was registered with).
inline ffi::Ffi *ffi_bind(const kernel &k) {
  const kernel *launched = &k;
  return ffi::Ffi::Bind()
      .RemainingArgs()
      .RemainingRets()
      .Attr<ffi::Span<const int64_t>>("dim")
      .To([launched](ffi::RemainingArgs args, ffi::RemainingRets rets,
                     ffi::Span<const int64_t> dim) {
        return ffi_launch(*launched, args, rets, dim);
      })
      .release();
}

using ffi_handler = XLA_FFI_Error *(*)(XLA_FFI_CallFrame *);

/// The handlers by kernel name, as the capsules jax.ffi.register_ffi_target
/// takes (`module.__ksc_ffi__`).
inline void ffi_capsules(nb::dict result, const kernel *kernels,
                         const ffi_handler *handlers, size_t count) {
  for (size_t i = 0; i < count; ++i)
    result[kernels[i].name] =
        nb::capsule(reinterpret_cast<void *>(handlers[i]));
}
#endif // KSC_PYTHON_JAX

/// The module attribute `name` (a dict), made when it is not there yet.
inline nb::dict module_dict(nb::module_ &m, const char *name) {
  if (!nb::hasattr(m, name))
    m.attr(name) = nb::dict();
  return nb::borrow<nb::dict>(m.attr(name));
}

/// Adds the kernels of one kernel file to module `m`: their descriptions
/// (`__ksc_kernels__`) and, with `handlers`, their XLA FFI handlers
/// (`__ksc_ffi__`). A module built from several kernel files gets one call
/// per file; two kernels of one name are an ImportError.
inline void add_kernels(nb::module_ &m, const kernel *kernels, size_t count,
                        const char *target, const void *handlers) {
  nb::dict described = module_dict(m, "__ksc_kernels__");
  for (size_t i = 0; i < count; ++i)
    if (described.contains(kernels[i].name))
      throw nb::import_error((std::string("two kernel files of module ") +
                              nb::cast<std::string>(m.attr("__name__")) +
                              " define the kernel '" + kernels[i].name + "'")
                                 .c_str());
  describe(described, kernels, count, target);
#ifdef KSC_PYTHON_JAX
  ffi_capsules(module_dict(m, "__ksc_ffi__"), kernels,
               static_cast<const ffi_handler *>(handlers), count);
#else
  (void)handlers;
#endif
}

} // namespace ksc::python

#endif // KSC_PYTHON_H
