# The Atari family (src/envs/ale), -DNE_ALE=ON: links the ALE C++ library that scripts/build-ale
# builds from ale-py's source distribution (about 2.5 minutes on 2 cores, once) into a cache keyed
# by the ale-py version, .deps/ale-<version>/install in the source tree, which the release and ASan
# builds share. `make test` and `make ale` build the cache and turn this on; a plain configure
# (`make run` on a fresh clone) leaves it off, so it never pays for the ALE build. Included by the
# top-level CMakeLists.txt after add_library(neuroevo); src/envs/ale is left out of the default
# source glob there.
#
# Adds: the family sources and the extern "C" shim (C++17, ALE's headers need it), the link to
# ale::ale-lib, NE_HAVE_ALE (registry.c lists ALE/* ids), NE_ALE_ROMS (ale-py's ROM folder, the
# files its wheel ships; overridable at run time with NEUROEVO_ALE_ROMS), and the tests in
# tests/ale/: the C tests with the labels "ale" and "unit" (so the ASan suite runs them too), the
# Gymnasium comparison with "ale" only (release ctest; `ctest -L ale` runs them all).

option(NE_ALE "Build the Atari family (ALE/*) against the ALE library scripts/build-ale builds" OFF)
if(NOT NE_ALE)
  return()
endif()

# the version comes from scripts/build-ale's VERSION= line, the one place it is set
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/build-ale" _ne_ale_version REGEX "^VERSION=")
string(REGEX REPLACE "^VERSION=([0-9.]+).*" "\\1" _ne_ale_version "${_ne_ale_version}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/scripts/build-ale")
# (empty cache entries, not the derived paths: a version bump then moves a configured build along)
set(NE_ALE_DIR "" CACHE PATH "Install prefix of the ALE C++ library (empty: .deps/ale-<version>/install)")
set(NE_ALE_ROMS "" CACHE PATH "Folder of Atari ROMs (empty: the prefix's roms/, ale-py's wheel's)")
set(_ne_ale_prefix "${NE_ALE_DIR}")
if(NOT _ne_ale_prefix)
  set(_ne_ale_prefix "${PROJECT_SOURCE_DIR}/.deps/ale-${_ne_ale_version}/install")
endif()
set(_ne_ale_roms "${NE_ALE_ROMS}")
if(NOT _ne_ale_roms)
  set(_ne_ale_roms "${_ne_ale_prefix}/roms")
endif()
find_package(ale CONFIG PATHS "${_ne_ale_prefix}" NO_DEFAULT_PATH)
if(NOT ale_FOUND)
  message(FATAL_ERROR "NE_ALE=ON but no ALE library in ${_ne_ale_prefix}: run scripts/build-ale first "
                      "(`make test` and `make ale` do)")
endif()
message(STATUS "ALE: ${_ne_ale_prefix}; ROMs: ${_ne_ale_roms}")

enable_language(CXX)
file(GLOB _ne_ale_src CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/envs/ale/*.c ${PROJECT_SOURCE_DIR}/src/envs/ale/*.cpp)
target_sources(neuroevo PRIVATE ${_ne_ale_src})
# ALE's headers use std::filesystem and std::optional; C++17 is a superset for the Box2D shim too
set_target_properties(neuroevo PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
# the headers include each other as "ale/..." from the prefix's include/ (system: not our warnings)
target_include_directories(neuroevo SYSTEM PRIVATE "${_ne_ale_prefix}/include")
target_link_libraries(neuroevo PUBLIC ale::ale-lib)
target_compile_definitions(neuroevo PUBLIC NE_HAVE_ALE=1 PRIVATE NE_ALE_ROMS="${_ne_ale_roms}")

# tests/ale/: C tests (labels "ale" and "unit": ALE's emulator is an uninstrumented release library,
# so under ASan they cost seconds and check our side: the shim, the preprocessing, its SIMD kernels)
# and the comparison with ale-py + Gymnasium (label "ale": Python, release only)
file(GLOB _ne_ale_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/ale/test_*.c)
foreach(src ${_ne_ale_tests})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE neuroevo)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS "ale;unit")
endforeach()
# the trace helper the Python comparison drives (not a test itself)
add_executable(ale_trace ${PROJECT_SOURCE_DIR}/tests/ale/ale_trace.c)
target_include_directories(ale_trace PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ale_trace PRIVATE neuroevo)
find_package(Python3 COMPONENTS Interpreter)
file(GLOB _ne_ale_py CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/ale/py_*.py)
foreach(script ${_ne_ale_py})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${script})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS "ale"
    ENVIRONMENT "NEUROEVO_BIN=$<TARGET_FILE:neuroevo_cli>;NEUROEVO_ALE_TRACE=$<TARGET_FILE:ale_trace>;NEUROEVO_ALE_ROMS=${_ne_ale_roms}")
endforeach()
