# Distributed with ksc. Loaded by find_package(ksc) (kscConfig.cmake) and, when
# ksc is part of the build (add_subdirectory / FetchContent), by ksc's own
# top-level CMakeLists.txt.
#
# ksc_add_kernels
# ---------------
#
# Compile ksc kernel files (.kdsl) at build time and add the generated C++ or
# CUDA C++ to an existing target::
#
#   ksc_add_kernels(<target>
#                   SOURCES <file>...
#                   [TARGET cpu|cuda]
#                   [GRAD reverse|forward|all|hvp]
#                   [WRT <argument>...]
#                   [WIDTH <W>]
#                   [PRECISION source|double]
#                   [BOUNDS_CHECK]
#                   [NAMESPACE <ns>]
#                   [ARCH <sm_XX>...]
#                   [INCLUDE_DIRECTORIES <dir>...]
#                   [DEFINES <NAME[=VALUE]>...]
#                   [OPTIONS <ksc option>...]
#                   [OUTPUT_DIRECTORY <dir>]
#                   [PUBLIC])
#
# ``<target>``
#   An existing executable, static, shared, module or object library target.
#
# ``SOURCES``
#   The kernel files (required). Relative paths are relative to
#   ``CMAKE_CURRENT_SOURCE_DIR``. For each ``<file>`` whose name is
#   ``<name>`` (e.g. ``saxpy.kdsl``) one custom command runs ``ksc::ksc`` and
#   writes, in the output directory:
#
#   * ``<name>.cpp`` (``TARGET cpu``) or ``<name>.cu`` (``TARGET cuda``):
#     the launchers, added to ``<target>``'s sources (PRIVATE);
#   * ``<name>.h``: the header declaring them (``ksc --emit-header``:
#     ``launch_K(...)`` for each kernel ``K``, and for cuda ``K_launch(...)``;
#     with ``NAMESPACE`` inside that namespace), so that the target's sources
#     can ``#include "saxpy.kdsl.h"``;
#   * ``<name>.d``: the dependency file (the kernel file and everything it
#     includes), given to CMake as the custom command's ``DEPFILE``, so
#     editing an included file regenerates the code (Ninja and Makefile
#     generators).
#
#   Outputs are named by the file name only, so two SOURCES with the same
#   file name (``a/k.kdsl`` and ``b/k.kdsl``) would write the same files:
#   that is an error (also across calls, e.g. the same file for ``TARGET
#   cpu`` and ``TARGET cuda`` in one output directory: both write
#   ``k.kdsl.h``). Give one of them another ``OUTPUT_DIRECTORY`` in a
#   separate call (and another ``NAMESPACE`` if both end up in one program).
#
# ``TARGET``
#   ``cpu`` (default): C++ for the CPU; ``cuda``: CUDA C++, compiled by
#   CMake's CUDA language, which the project must have enabled before the
#   call (``project(... LANGUAGES CXX CUDA)`` or ``enable_language(CUDA)``).
#   For ``cuda`` the function also adds the ``cuda_std_17`` compile feature
#   to ``<target>``.
#
# ``GRAD``, ``WRT``, ``WIDTH``, ``PRECISION``, ``BOUNDS_CHECK``
#   ``--grad=<mode>``, ``--wrt=<a>,<b>``, ``--width=<W>`` (only with ``GRAD
#   forward`` or ``GRAD all``; ``WRT`` only with ``GRAD``),
#   ``--precision=<p>`` and ``--bounds-check`` of ksc.
#
# ``NAMESPACE``
#   ``--namespace=<ns>`` (e.g. ``physics::kernels``): the C++ namespace of the
#   launchers.
#
# ``ARCH``
#   Only with ``TARGET cuda``. Not passed to ksc (whose ``--gpu-arch`` concerns
#   PTX output only): each ``sm_XX`` (or ``XX``, ``XXa``, ...) is added to the
#   ``CUDA_ARCHITECTURES`` property of ``<target>`` (``sm_80 sm_90`` gives
#   ``80;90``), which applies to all of the target's CUDA sources. The first
#   call with ``ARCH`` for a target replaces the property's value (which
#   defaults to ``CMAKE_CUDA_ARCHITECTURES``); later calls add to it. Without
#   ``ARCH`` the property is left alone.
#
# ``INCLUDE_DIRECTORIES``, ``DEFINES``
#   ``-I<dir>`` (relative paths are relative to ``CMAKE_CURRENT_SOURCE_DIR``)
#   and ``-D<NAME>[=<VALUE>]`` for the kernel files' preprocessor.
#
# ``OPTIONS``
#   Further ksc options, passed as they are (e.g. ``--block-size=128``,
#   ``--launch=grid-stride``). They come after the options above.
#
# ``OUTPUT_DIRECTORY``
#   Where the generated files go; relative paths are relative to
#   ``CMAKE_CURRENT_BINARY_DIR``. Default:
#   ``${CMAKE_CURRENT_BINARY_DIR}/ksc/<target>``.
#
# ``PUBLIC``
#   By default the output directory is a PRIVATE include directory of
#   ``<target>`` and ``ksc::runtime`` a PRIVATE link dependency: only the
#   target's own sources include the generated headers. With ``PUBLIC`` both
#   become PUBLIC (the directory as ``$<BUILD_INTERFACE:...>``), for a library
#   whose headers include the generated ones.
#
# The function links ``ksc::runtime`` with ``target_link_libraries``'s keyword
# signature (``PRIVATE``/``PUBLIC``), so a target linked with the plain
# signature elsewhere (``target_link_libraries(t lib)``) cannot use it.
#
# It may be called from another directory than the one that created
# ``<target>``; it then adds a custom target ``<target>_ksc_<n>`` in the
# calling directory to run the commands.
#
# Every option is checked: a misspelled or unknown keyword, a missing value,
# an unknown TARGET/GRAD/PRECISION, WIDTH without GRAD forward|all, ARCH
# without TARGET cuda, a missing target or source stops the configuration with
# a ``ksc_add_kernels: ...`` error.
#
# Example::
#
#   find_package(ksc 0.1 REQUIRED)
#   add_executable(app main.cpp)
#   ksc_add_kernels(app SOURCES kernels/saxpy.kdsl GRAD reverse)
#   # main.cpp: #include "saxpy.kdsl.h" ... launch_saxpy(n, a, x, y);
#
# Requires CMake 3.20 (DEPFILE with Makefile generators, policy CMP0116).

include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "ksc_add_kernels needs CMake 3.20 or newer; this is "
                      "CMake ${CMAKE_VERSION}.")
endif()

# Functions run with the policy settings in force where they are defined:
# these, whatever the calling project's cmake_minimum_required says. CMP0116
# NEW makes Ninja read the DEPFILE's absolute paths (ksc writes absolute
# ones) as the paths of the build's files, whatever the calling directory.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

# Sets _args (ksc's options) and _archs (CUDA_ARCHITECTURES) in the calling
# ksc_add_kernels from its parsed arguments (_ksc_*), after checking them.
function(_ksc_add_kernels_options)
  set(_args "--target=${_ksc_TARGET}")

  # GRAD, WRT, WIDTH.
  if(DEFINED _ksc_GRAD)
    if(NOT "${_ksc_GRAD}" MATCHES "^(reverse|forward|all|hvp)$")
      message(FATAL_ERROR "${_err}: GRAD '${_ksc_GRAD}' is not one of: "
                          "reverse forward all hvp")
    endif()
    list(APPEND _args "--grad=${_ksc_GRAD}")
  endif()
  if(DEFINED _ksc_WRT)
    if(NOT DEFINED _ksc_GRAD)
      message(FATAL_ERROR "${_err}: WRT needs GRAD (it selects the "
                          "arguments the derivative kernels differentiate)")
    endif()
    foreach(_a IN LISTS _ksc_WRT)
      if(NOT _a MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
        message(FATAL_ERROR "${_err}: WRT '${_a}' is not an argument name")
      endif()
    endforeach()
    list(JOIN _ksc_WRT "," _wrt)
    list(APPEND _args "--wrt=${_wrt}")
  endif()
  if(DEFINED _ksc_WIDTH)
    if(NOT "${_ksc_GRAD}" MATCHES "^(forward|all)$")
      if(DEFINED _ksc_GRAD)
        set(_given "not GRAD ${_ksc_GRAD}")
      else()
        set(_given "and there is no GRAD")
      endif()
      message(FATAL_ERROR "${_err}: WIDTH needs GRAD forward or GRAD all "
        "(it is the number of tangent directions), ${_given}")
    endif()
    if(NOT _ksc_WIDTH MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "${_err}: WIDTH '${_ksc_WIDTH}' is not a positive "
                          "integer")
    endif()
    list(APPEND _args "--width=${_ksc_WIDTH}")
  endif()

  # PRECISION, BOUNDS_CHECK, NAMESPACE.
  if(DEFINED _ksc_PRECISION)
    if(NOT _ksc_PRECISION MATCHES "^(source|double)$")
      message(FATAL_ERROR "${_err}: PRECISION '${_ksc_PRECISION}' is not one "
                          "of: source double")
    endif()
    list(APPEND _args "--precision=${_ksc_PRECISION}")
  endif()
  if(_ksc_BOUNDS_CHECK)
    list(APPEND _args "--bounds-check")
  endif()
  if(DEFINED _ksc_NAMESPACE)
    if(NOT _ksc_NAMESPACE MATCHES
       "^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
      message(FATAL_ERROR "${_err}: NAMESPACE '${_ksc_NAMESPACE}' is not a "
                          "C++ namespace name such as a::b")
    endif()
    list(APPEND _args "--namespace=${_ksc_NAMESPACE}")
  endif()

  # ARCH: a property of the target, not a ksc option.
  set(_archs)
  if(DEFINED _ksc_ARCH)
    if(NOT _ksc_TARGET STREQUAL "cuda")
      message(FATAL_ERROR "${_err}: ARCH applies only to TARGET cuda")
    endif()
    foreach(_a IN LISTS _ksc_ARCH)
      if(NOT _a MATCHES "^(sm_|compute_)?([0-9]+[a-z]?)(-real|-virtual)?$")
        message(FATAL_ERROR "${_err}: ARCH '${_a}' is not a GPU architecture "
                            "such as sm_80, sm_90a or 90")
      endif()
      list(APPEND _archs "${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
    endforeach()
  endif()

  # INCLUDE_DIRECTORIES, DEFINES, OPTIONS.
  foreach(_dir IN LISTS _ksc_INCLUDE_DIRECTORIES)
    cmake_path(ABSOLUTE_PATH _dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               NORMALIZE)
    list(APPEND _args "-I${_dir}")
  endforeach()
  foreach(_def IN LISTS _ksc_DEFINES)
    string(REGEX REPLACE "^-D" "" _def "${_def}")
    if(NOT _def MATCHES "^[A-Za-z_][A-Za-z0-9_]*(=.*)?$")
      message(FATAL_ERROR "${_err}: DEFINES '${_def}' is not NAME or "
                          "NAME=VALUE")
    endif()
    list(APPEND _args "-D${_def}")
  endforeach()
  list(APPEND _args ${_ksc_OPTIONS})
  set(_args "${_args}" PARENT_SCOPE)
  set(_archs "${_archs}" PARENT_SCOPE)
endfunction()

# Adds the generated files (_generated) of the calling ksc_add_kernels to its
# target, with the output directory, ksc::runtime and the CUDA settings.
function(_ksc_add_kernels_attach)
  # Add the outputs to the target. A custom command's rule goes to the targets
  # of the directory that defines it, so a target of another directory gets
  # a custom target here that runs the commands, and the files are marked
  # GENERATED in its directory.
  get_target_property(_target_dir "${target}" BINARY_DIR)
  if(_target_dir STREQUAL CMAKE_CURRENT_BINARY_DIR)
    target_sources("${target}" PRIVATE ${_generated})
  else()
    get_property(_n TARGET "${target}" PROPERTY _KSC_KERNEL_TARGETS)
    if(NOT _n)
      set(_n 0)
    endif()
    math(EXPR _n "${_n} + 1")
    set_property(TARGET "${target}" PROPERTY _KSC_KERNEL_TARGETS "${_n}")
    add_custom_target("${target}_ksc_${_n}" DEPENDS ${_generated})
    add_dependencies("${target}" "${target}_ksc_${_n}")
    set_source_files_properties(${_generated} TARGET_DIRECTORY "${target}"
                                PROPERTIES GENERATED TRUE)
    target_sources("${target}" PRIVATE ${_generated})
  endif()

  if(_ksc_PUBLIC)
    set(_scope PUBLIC)
  else()
    set(_scope PRIVATE)
  endif()
  target_include_directories("${target}" ${_scope}
                             "$<BUILD_INTERFACE:${_outdir}>")
  target_link_libraries("${target}" ${_scope} ksc::runtime)

  if(_ksc_TARGET STREQUAL "cuda")
    target_compile_features("${target}" PRIVATE cuda_std_17)
    if(_archs)
      get_property(_have TARGET "${target}" PROPERTY _KSC_CUDA_ARCHITECTURES)
      if(_have)
        get_property(_current TARGET "${target}" PROPERTY CUDA_ARCHITECTURES)
        list(APPEND _current ${_archs})
        list(REMOVE_DUPLICATES _current)
      else()
        set(_current ${_archs})
      endif()
      set_property(TARGET "${target}" PROPERTY CUDA_ARCHITECTURES ${_current})
      set_property(TARGET "${target}" PROPERTY _KSC_CUDA_ARCHITECTURES TRUE)
    endif()
  endif()
endfunction()

# Stops the calling function (`_err` names it) unless the project enabled
# CMake's CUDA language; `caller` is the function's name for the message.
function(_ksc_require_cuda_language caller)
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _languages OR NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "${_err}: TARGET cuda needs CMake's CUDA language, "
      "which this project has not enabled: add CUDA to project(... "
      "LANGUAGES CXX CUDA) or call enable_language(CUDA) before "
      "${caller} (the CUDA toolkit must be found)")
  endif()
endfunction()

# Sets _outdir in the caller: OUTPUT_DIRECTORY (_ksc_OUTPUT_DIRECTORY) or
# `default`, relative to the current binary directory, made.
function(_ksc_output_directory default)
  if(DEFINED _ksc_OUTPUT_DIRECTORY)
    set(_outdir "${_ksc_OUTPUT_DIRECTORY}")
  else()
    set(_outdir "${default}")
  endif()
  cmake_path(ABSOLUTE_PATH _outdir BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
             NORMALIZE)
  string(REGEX REPLACE "(.)/$" "\\1" _outdir "${_outdir}")
  file(MAKE_DIRECTORY "${_outdir}")
  set(_outdir "${_outdir}" PARENT_SCOPE)
endfunction()

# Sets _touch in the caller: the command after ksc's that touches its
# outputs, for generators without restat. ksc leaves an output that would
# not change untouched, for Ninja's restat (CMake's Ninja generator gives
# custom commands with a DEPFILE restat = 1): then a change to an included
# file that leaves the code as it is compiles nothing. Make has no restat
# and would run ksc at every build once an input is newer than the
# outputs, so other generators touch them.
function(_ksc_touch_command)
  set(_touch)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(_touch COMMAND "${CMAKE_COMMAND}" -E touch_nocreate)
  endif()
  set(_touch "${_touch}" PARENT_SCOPE)
endfunction()

# Sets _src in the caller to the source `_src` as an absolute path, after
# checking that it exists (or is generated) and is a file. `_err` and
# `_keywords` (the caller's keywords, for a misspelled one) come from the
# caller.
function(_ksc_check_source)
  cmake_path(ABSOLUTE_PATH _src BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
             NORMALIZE)
  get_source_file_property(_src_generated "${_src}" GENERATED)
  if(NOT EXISTS "${_src}" AND NOT _src_generated)
    cmake_path(GET _src FILENAME _name)
    if(_name MATCHES "^[A-Z][A-Z_]*$")
      # A misspelled keyword after SOURCES is taken for a source.
      message(FATAL_ERROR "${_err}: unknown keyword '${_name}' (taken for "
        "a source file, which does not exist); keywords: ${_keywords}")
    endif()
    message(FATAL_ERROR "${_err}: the source '${_src}' does not exist")
  endif()
  if(IS_DIRECTORY "${_src}")
    message(FATAL_ERROR "${_err}: the source '${_src}' is a directory")
  endif()
  set(_src "${_src}" PARENT_SCOPE)
endfunction()

function(ksc_add_kernels target)
  set(_flags BOUNDS_CHECK PUBLIC)
  set(_one TARGET GRAD WIDTH PRECISION NAMESPACE OUTPUT_DIRECTORY)
  set(_multi SOURCES WRT ARCH INCLUDE_DIRECTORIES DEFINES OPTIONS)
  cmake_parse_arguments(PARSE_ARGV 1 _ksc "${_flags}" "${_one}" "${_multi}")
  set(_err "ksc_add_kernels(${target})")
  list(JOIN _flags " " _keywords)
  list(JOIN _one " " _k)
  string(APPEND _keywords " ${_k}")
  list(JOIN _multi " " _k)
  string(APPEND _keywords " ${_k}")

  if(_ksc_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_err}: unknown arguments: "
      "${_ksc_UNPARSED_ARGUMENTS} (keywords: ${_keywords})")
  endif()
  if(_ksc_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_err}: no value given for: "
                        "${_ksc_KEYWORDS_MISSING_VALUES}")
  endif()

  # The target.
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${_err}: there is no target named '${target}'; "
      "create it (add_executable/add_library) before calling ksc_add_kernels")
  endif()
  get_target_property(_aliased "${target}" ALIASED_TARGET)
  if(_aliased)
    message(FATAL_ERROR "${_err}: '${target}' is an ALIAS of "
                        "'${_aliased}'; name the real target")
  endif()
  get_target_property(_imported "${target}" IMPORTED)
  get_target_property(_type "${target}" TYPE)
  if(_imported OR NOT _type MATCHES
     "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    if(_imported)
      set(_type "IMPORTED ${_type}")
    endif()
    message(FATAL_ERROR "${_err}: '${target}' is a target of type ${_type}; "
      "need an executable or a static, shared, module or object library built "
      "by this project")
  endif()
  if(NOT TARGET ksc::ksc OR NOT TARGET ksc::runtime)
    message(FATAL_ERROR "${_err}: the targets ksc::ksc and ksc::runtime are "
      "not defined: call find_package(ksc) (or add ksc with add_subdirectory) "
      "in this directory or a parent")
  endif()

  # SOURCES.
  if(NOT _ksc_SOURCES)
    message(FATAL_ERROR "${_err}: SOURCES is missing (the .kdsl files)")
  endif()

  # TARGET.
  if(NOT DEFINED _ksc_TARGET)
    set(_ksc_TARGET cpu)
  endif()
  if(_ksc_TARGET STREQUAL "cpu")
    set(_ext cpp)
  elseif(_ksc_TARGET STREQUAL "cuda")
    set(_ext cu)
    _ksc_require_cuda_language(ksc_add_kernels)
  else()
    message(FATAL_ERROR "${_err}: TARGET '${_ksc_TARGET}' is not one of: "
                        "cpu cuda")
  endif()

  # The options of ksc (_args) and the target's CUDA architectures (_archs).
  _ksc_add_kernels_options()

  _ksc_output_directory("ksc/${target}")
  _ksc_touch_command()

  # One command per kernel file.
  set(_generated)
  foreach(_src IN LISTS _ksc_SOURCES)
    _ksc_check_source()
    cmake_path(GET _src FILENAME _name)
    set(_out "${_outdir}/${_name}.${_ext}")
    set(_header "${_outdir}/${_name}.h")
    set(_depfile "${_outdir}/${_name}.d")
    set(_touch_files)
    if(_touch)
      set(_touch_files "${_out}" "${_header}")
    endif()

    # Both TARGETs write <name>.h: two commands that write one header clash.
    get_property(_previous GLOBAL PROPERTY "_ksc_add_kernels_output:${_header}")
    get_property(_previous_src GLOBAL PROPERTY "_ksc_add_kernels_source:${_header}")
    if(_previous AND _previous_src STREQUAL _src)
      message(FATAL_ERROR "${_err}: '${_src}' is compiled into '${_header}' "
        "already (by ${_previous}): it is listed twice, or needs another "
        "OUTPUT_DIRECTORY")
    elseif(_previous)
      message(FATAL_ERROR "${_err}: '${_src}' would write '${_header}', which "
        "'${_previous_src}' writes already, in ${_previous} (outputs are "
        "named by the file name). "
        "Compile one of them in a separate ksc_add_kernels call with another "
        "OUTPUT_DIRECTORY (and NAMESPACE, if both are linked together).")
    endif()
    set_property(GLOBAL PROPERTY "_ksc_add_kernels_output:${_header}"
      "ksc_add_kernels(${target}) in ${CMAKE_CURRENT_LIST_FILE}")
    set_property(GLOBAL PROPERTY "_ksc_add_kernels_source:${_header}" "${_src}")

    cmake_path(RELATIVE_PATH _out BASE_DIRECTORY "${CMAKE_BINARY_DIR}"
               OUTPUT_VARIABLE _out_display)
    add_custom_command(
      OUTPUT "${_out}" "${_header}"
      COMMAND ksc::ksc "${_src}" ${_args}
              "--emit-header=${_header}"
              -MD -MF "${_depfile}"
              -o "${_out}"
      ${_touch} ${_touch_files}
      DEPENDS ksc::ksc "${_src}"
      DEPFILE "${_depfile}"
      COMMENT "Compiling kernels ${_name} (ksc --target=${_ksc_TARGET}) to ${_out_display}"
      VERBATIM
      COMMAND_EXPAND_LISTS)
    list(APPEND _generated "${_out}" "${_header}")
  endforeach()

  _ksc_add_kernels_attach()
endfunction()

cmake_policy(POP)
