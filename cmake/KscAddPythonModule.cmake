# Distributed with ksc. Loaded with KscAddKernels.cmake by find_package(ksc)
# and by ksc's own top-level CMakeLists.txt.
#
# ksc_add_python_module
# ---------------------
#
# Build a Python extension module of ksc kernels (docs/python.md)::
#
#   ksc_add_python_module(<name>
#                         SOURCES <file>...
#                         [GRAD reverse|forward|all|hvp]
#                         [WRT <argument>...]
#                         [WIDTH <W>]
#                         [PRECISION source|double]
#                         [BOUNDS_CHECK]
#                         [TARGET cpu|cuda]
#                         [ARCH <sm_XX>...]
#                         [JAX AUTO|ON|OFF]
#                         [INCLUDE_DIRECTORIES <dir>...]
#                         [DEFINES <NAME[=VALUE]>...]
#                         [OPTIONS <ksc option>...]
#                         [OUTPUT_DIRECTORY <dir>])
#
# ``<name>``
#   The module's name, what ``import`` names (a Python identifier), and the
#   name of the target this adds (a nanobind module: ``nanobind_add_module``).
#   Install it where the package wants it, e.g. ``install(TARGETS <name>
#   LIBRARY DESTINATION .)`` in a scikit-build-core project.
#
# ``SOURCES``
#   The kernel files (required). Each is compiled by ``ksc --emit=python``
#   into ``<file name>.py.cpp`` (``.py.cu`` for ``TARGET cuda``) in the
#   output directory (default
#   ``${CMAKE_CURRENT_BINARY_DIR}/ksc/<name>``); the module has a function
#   for every kernel and derivative kernel of all of them. Two files must
#   not define kernels of the same name (give them other names, or use
#   two modules).
#
# ``GRAD``, ``WRT``, ``WIDTH``, ``PRECISION``, ``BOUNDS_CHECK``,
# ``INCLUDE_DIRECTORIES``, ``DEFINES``, ``OPTIONS``
#   As for ``ksc_add_kernels``. ``BOUNDS_CHECK`` makes an index out of range
#   a Python exception instead of undefined behaviour.
#
# ``TARGET``
#   ``cpu`` (default): the functions launch kernels on the CPU's cores and
#   take arrays in CPU memory. ``cuda``: CUDA kernels (``ksc --target=cuda``,
#   compiled by CMake's CUDA language, which the project must enable), which
#   take arrays in CUDA device memory and run on their device and on the
#   ``stream=`` given (default: the default stream).
#
# ``ARCH``
#   With ``TARGET cuda``: the module's ``CUDA_ARCHITECTURES``, as for
#   ``ksc_add_kernels``.
#
# ``JAX``
#   Whether the kernels are also XLA FFI handlers for ``ksc.jax`` (CPU
#   modules only): ``AUTO`` (default) when the Python the module is built
#   for can import jax, ``ON`` (an error when it cannot), ``OFF``.
#
# The function needs nanobind: it calls ``find_package(Python ...
# Development.Module)`` and ``find_package(nanobind CONFIG)`` (through
# ``python -m nanobind --cmake_dir``) unless the project has already.
#
# Example (a scikit-build-core project, examples/python)::
#
#   find_package(ksc 0.1 REQUIRED)
#   ksc_add_python_module(physics SOURCES kernels/step.kdsl GRAD all)
#   install(TARGETS physics LIBRARY DESTINATION .)

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/KscAddKernels.cmake")

cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

# Makes nanobind_add_module available, or stops with an error saying how.
macro(_ksc_find_nanobind)
  if(NOT COMMAND nanobind_add_module)
    if(NOT TARGET Python::Module)
      find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
      if(NOT Python_FOUND)
        message(FATAL_ERROR "${_err}: no Python with its development files "
          "was found (find_package(Python COMPONENTS Interpreter "
          "Development.Module))")
      endif()
    endif()
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
      OUTPUT_VARIABLE _ksc_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _ksc_status ERROR_QUIET)
    if(NOT _ksc_status EQUAL 0)
      message(FATAL_ERROR "${_err}: nanobind is not installed for "
        "${Python_EXECUTABLE} (pip install nanobind)")
    endif()
    find_package(nanobind CONFIG REQUIRED PATHS "${_ksc_nanobind_dir}"
                 NO_DEFAULT_PATH)
  endif()
endmacro()

function(ksc_add_python_module name)
  set(_flags BOUNDS_CHECK)
  set(_one TARGET GRAD WIDTH PRECISION JAX OUTPUT_DIRECTORY)
  set(_multi SOURCES WRT ARCH INCLUDE_DIRECTORIES DEFINES OPTIONS)
  cmake_parse_arguments(PARSE_ARGV 1 _ksc "${_flags}" "${_one}" "${_multi}")
  set(_err "ksc_add_python_module(${name})")
  list(JOIN _flags " " _k1)
  list(JOIN _one " " _k2)
  list(JOIN _multi " " _k3)
  set(_keywords "${_k1} ${_k2} ${_k3}")
  if(_ksc_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_err}: unknown arguments: "
      "${_ksc_UNPARSED_ARGUMENTS} (keywords: ${_keywords})")
  endif()
  if(_ksc_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_err}: no value given for: "
                        "${_ksc_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${_err}: '${name}' is not a Python module name "
                        "(ASCII letters, digits and '_', not a digit first)")
  endif()
  if(TARGET "${name}")
    message(FATAL_ERROR "${_err}: there is a target named '${name}' already")
  endif()
  if(NOT TARGET ksc::ksc OR NOT TARGET ksc::runtime)
    message(FATAL_ERROR "${_err}: the targets ksc::ksc and ksc::runtime are "
      "not defined: call find_package(ksc) (or add ksc with add_subdirectory) "
      "in this directory or a parent")
  endif()
  if(NOT _ksc_SOURCES)
    message(FATAL_ERROR "${_err}: SOURCES is missing (the .kdsl files)")
  endif()
  if(NOT DEFINED _ksc_TARGET)
    set(_ksc_TARGET cpu)
  endif()
  if(_ksc_TARGET STREQUAL "cpu")
    set(_ext cpp)
  elseif(_ksc_TARGET STREQUAL "cuda")
    set(_ext cu)
    _ksc_require_cuda_language(ksc_add_python_module)
  else()
    message(FATAL_ERROR "${_err}: TARGET '${_ksc_TARGET}' is not one of: "
                        "cpu cuda")
  endif()
  if(NOT DEFINED _ksc_JAX)
    set(_ksc_JAX AUTO)
  endif()
  if(_ksc_TARGET STREQUAL "cuda" AND _ksc_JAX STREQUAL "ON")
    message(FATAL_ERROR "${_err}: JAX ON: ksc.jax takes modules of CPU "
                        "kernels only")
  endif()
  if(NOT _ksc_JAX MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${_err}: JAX '${_ksc_JAX}' is not one of: AUTO ON "
                        "OFF")
  endif()
  _ksc_add_kernels_options()
  _ksc_find_nanobind()

  _ksc_output_directory("ksc/${name}")
  _ksc_touch_command()

  # One command per kernel file, each writing a function that adds its
  # kernels to the module; the module's own file calls them all.
  set(_generated)
  set(_declarations)
  set(_calls)
  set(_index 0)
  foreach(_src IN LISTS _ksc_SOURCES)
    _ksc_check_source()
    cmake_path(GET _src FILENAME _file)
    set(_out "${_outdir}/${_file}.py.${_ext}")
    set(_depfile "${_outdir}/${_file}.py.d")
    if("${_out}" IN_LIST _generated)
      message(FATAL_ERROR "${_err}: two SOURCES are named '${_file}'; "
                          "the generated files are named by the file name")
    endif()
    set(_init "ksc_python_init_${_index}")
    math(EXPR _index "${_index} + 1")
    set(_touch_files)
    if(_touch)
      set(_touch_files "${_out}")
    endif()
    cmake_path(RELATIVE_PATH _out BASE_DIRECTORY "${CMAKE_BINARY_DIR}"
               OUTPUT_VARIABLE _out_display)
    add_custom_command(
      OUTPUT "${_out}"
      COMMAND ksc::ksc "${_src}" ${_args} --emit=python
              "--python-module=${name}" "--python-init=${_init}"
              -MD -MF "${_depfile}" -o "${_out}"
      ${_touch} ${_touch_files}
      DEPENDS ksc::ksc "${_src}"
      DEPFILE "${_depfile}"
      COMMENT "Compiling kernels ${_file} (ksc --emit=python) to ${_out_display}"
      VERBATIM
      COMMAND_EXPAND_LISTS)
    list(APPEND _generated "${_out}")
    string(APPEND _declarations "void ${_init}(nanobind::module_ &m);\n")
    string(APPEND _calls "  ${_init}(m);\n")
  endforeach()
  set(_main "${_outdir}/${name}.module.cpp")
  file(CONFIGURE OUTPUT "${_main}" CONTENT
"// Generated by ksc_add_python_module(${name}). Do not edit.
#include <nanobind/nanobind.h>

${_declarations}
NB_MODULE(${name}, m) {
${_calls}}
" @ONLY)

  nanobind_add_module("${name}" "${_main}" ${_generated})
  target_link_libraries("${name}" PRIVATE ksc::runtime)
  if(_ksc_TARGET STREQUAL "cuda")
    target_compile_features("${name}" PRIVATE cuda_std_17)
    if(_archs)
      set_property(TARGET "${name}" PROPERTY CUDA_ARCHITECTURES ${_archs})
    endif()
  endif()

  # JAX: jaxlib's FFI headers make the kernels XLA FFI handlers too.
  if(_ksc_TARGET STREQUAL "cpu" AND NOT _ksc_JAX STREQUAL "OFF")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -c
              "import jax.ffi; print(jax.ffi.include_dir())"
      OUTPUT_VARIABLE _jax_include OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _status ERROR_QUIET)
    if(_status EQUAL 0 AND IS_DIRECTORY "${_jax_include}")
      target_include_directories("${name}" SYSTEM PRIVATE "${_jax_include}")
    elseif(_ksc_JAX STREQUAL "ON")
      message(FATAL_ERROR "${_err}: JAX ON, but ${Python_EXECUTABLE} cannot "
                          "import jax.ffi (pip install jax)")
    endif()
  endif()
endfunction()

cmake_policy(POP)
