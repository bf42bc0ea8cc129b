# Precompiled headers (docs/testing.md, "Sanitizers").
#
#   -DKSC_PRECOMPILE_HEADERS=ON  each ksc library parses the MLIR, LLVM and
#       Clang headers its files include once, as a precompiled header
#       (CMake's target_precompile_headers), instead of once per file.
#       Parsing those headers is most of the time of building ksc: with
#       Clang, 70 to 85% of a file's compile time. Off by default, and for
#       Clang only: GCC's precompiled header of the same headers is 0.7 GB
#       per library and takes longer to make than it saves. utils/sanitize.sh
#       turns it on for its Clang build.
include(KscTargets)

option(KSC_PRECOMPILE_HEADERS
  "Precompile the MLIR, LLVM and Clang headers of each library (Clang only)" OFF)
if(KSC_PRECOMPILE_HEADERS AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KSC_PRECOMPILE_HEADERS needs Clang")
endif()

# Precompiles, for `target`, the headers that at least half of its source
# files include directly (read from the files at configure time): those
# its files share, which bring the MLIR, LLVM and Clang headers they
# include, and not those of one or two files, which the others would then
# see too (clang/Frontend's `frontend` namespace beside ksc's). Nothing for
# a target of fewer than two source files, for which a precompiled header
# saves nothing.
function(ksc_precompile_headers target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  list(LENGTH sources count)
  if(count LESS 2)
    return()
  endif()
  set(included) # every file's headers, one entry per file and header
  foreach(source ${sources})
    if(NOT IS_ABSOLUTE "${source}")
      set(source "${dir}/${source}")
    endif()
    if(NOT EXISTS "${source}") # generated
      continue()
    endif()
    get_filename_component(source_dir "${source}" DIRECTORY)
    file(STRINGS "${source}" includes REGEX "^#include \"[^\"]+\\.h\"")
    set(headers)
    foreach(include ${includes})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" path
             "${include}")
      if(path MATCHES "^(mlir|llvm|clang|ksc)/")
        list(APPEND headers "<${path}>")
      elseif(EXISTS "${source_dir}/${path}")
        get_filename_component(path "${source_dir}/${path}" ABSOLUTE)
        list(APPEND headers "${path}")
      endif()
    endforeach()
    list(REMOVE_DUPLICATES headers)
    list(APPEND included ${headers})
  endforeach()
  set(shared)
  set(unique ${included})
  list(REMOVE_DUPLICATES unique)
  foreach(header ${unique})
    set(uses 0)
    foreach(other ${included})
      if(other STREQUAL header)
        math(EXPR uses "${uses} + 1")
      endif()
    endforeach()
    math(EXPR twice "${uses} * 2")
    if(NOT twice LESS count)
      list(APPEND shared "${header}")
    endif()
  endforeach()
  if(shared)
    target_precompile_headers(${target} PRIVATE ${shared})
  endif()
endfunction()

# ksc_precompile_headers for every library and executable defined in `dir`
# and the directories below it (cmake/KscTargets.cmake), when
# KSC_PRECOMPILE_HEADERS is on.
function(ksc_precompile_headers_below dir)
  if(NOT KSC_PRECOMPILE_HEADERS)
    return()
  endif()
  ksc_targets_below("${dir}" targets)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "MODULE_LIBRARY")
      ksc_precompile_headers(${target})
    endif()
  endforeach()
endfunction()
