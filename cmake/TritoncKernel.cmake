# TritoncKernel.cmake: build Triton-C kernels with tritonc from CMake.
#
#   list(APPEND CMAKE_MODULE_PATH /path/to/tritonc/cmake)
#   include(TritoncKernel)
#   tritonc_add_kernel(<target> <file.tri>
#                      [NAME <name>]              # header name (default: the file's stem)
#                      [OUTPUT_DIR <dir>]         # default: <build dir>/tritonc/<target>
#                      [EMIT <kind>...]           # also write these kinds next to the header
#                                                 # (cubin, fatbin, ptx, py, ...)
#                      [OPTIONS <tritonc option>...])  # -D, -I, --arch, --symbol-prefix, ...
#
# Runs `tritonc <file.tri> -o <dir>/<name> --emit=header[,...] -MD -MF <dir>/<name>.d` as a
# custom command whose DEPFILE lists every #included file, so the header is rebuilt when the
# .tri file or anything it includes changes (CMake >= 3.20 for the Makefile generators). The
# header becomes a source of <target>, and <dir> one of its include directories:
# `#include "<name>.h"`. The header needs cuda.h and libcuda at build and link time:
# `find_package(CUDAToolkit)` and `target_link_libraries(<target> PRIVATE CUDA::cuda_driver)`.
#
# TRITONC_EXECUTABLE: the tritonc command (default: `tritonc` found on PATH).

cmake_minimum_required(VERSION 3.20)

function(tritonc_add_kernel target source)
  cmake_parse_arguments(PARSE_ARGV 2 TK "" "NAME;OUTPUT_DIR" "EMIT;OPTIONS")
  if(TK_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tritonc_add_kernel: unknown arguments ${TK_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tritonc_add_kernel: '${target}' is not a target (add_executable or add_library first)")
  endif()
  if(NOT TRITONC_EXECUTABLE)
    find_program(TRITONC_EXECUTABLE tritonc)
    if(NOT TRITONC_EXECUTABLE)
      message(FATAL_ERROR "tritonc_add_kernel: tritonc not found; set TRITONC_EXECUTABLE")
    endif()
  endif()
  get_filename_component(tri "${source}" ABSOLUTE)
  if(NOT TK_NAME)
    get_filename_component(TK_NAME "${source}" NAME_WE)
  endif()
  if(NOT TK_OUTPUT_DIR)
    set(TK_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/tritonc/${target}")
  endif()
  set(base "${TK_OUTPUT_DIR}/${TK_NAME}")
  set(kinds header ${TK_EMIT})
  list(REMOVE_DUPLICATES kinds)
  set(outputs "")
  foreach(kind IN LISTS kinds)
    if(kind STREQUAL "header")
      list(APPEND outputs "${base}.h")
    elseif(kind STREQUAL "llir")
      list(APPEND outputs "${base}.ll")
    else()
      list(APPEND outputs "${base}.${kind}")
    endif()
  endforeach()
  list(JOIN kinds "," emit)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${TK_OUTPUT_DIR}"
    COMMAND "${TRITONC_EXECUTABLE}" "${tri}" -o "${base}.h" "--emit=${emit}"
            -MD -MF "${base}.d" -MT "${base}.h" ${TK_OPTIONS}
    DEPENDS "${tri}"
    DEPFILE "${base}.d"
    COMMENT "tritonc ${source} -> ${TK_NAME}.h"
    VERBATIM)
  target_sources(${target} PRIVATE "${base}.h")
  target_include_directories(${target} PRIVATE "${TK_OUTPUT_DIR}")
endfunction()
