# The Atari family (src/envs/ale): an opt-in build, -DNE_ALE=ON (or `make ale`), because the ALE
# C++ library it links is built from ale-py's source distribution by scripts/build-ale, which takes
# about 2.5 minutes on 2 cores -- too long for the default build's 10-minute CI budget. Included by
# the top-level CMakeLists.txt after add_library(neuroevo); src/envs/ale is left out of the default
# source glob there.
#
# Adds: the family sources and the extern "C" shim (C++17, ALE's headers need it), the link to
# ale::ale-lib, NE_HAVE_ALE (registry.c lists ALE/* ids), NE_ALE_ROMS (ale-py's ROM folder, the
# files its wheel ships; overridable at run time with NEUROEVO_ALE_ROMS), and the tests in
# tests/ale/ under the ctest label "ale" (`ctest -L ale`), which the default build never has.

option(NE_ALE "Build the Atari family (ALE/*) against the ALE library scripts/build-ale builds" OFF)
if(NOT NE_ALE)
  return()
endif()

set(NE_ALE_DIR "${PROJECT_BINARY_DIR}/_ale/install" CACHE PATH
    "Install prefix of the ALE C++ library (scripts/build-ale DIR puts it in DIR/install)")
set(NE_ALE_ROMS "${NE_ALE_DIR}/roms" CACHE PATH "Folder of Atari ROMs (ale-py's roms/)")
find_package(ale CONFIG PATHS "${NE_ALE_DIR}" NO_DEFAULT_PATH)
if(NOT ale_FOUND)
  message(FATAL_ERROR "NE_ALE=ON but no ALE library in ${NE_ALE_DIR}: run scripts/build-ale "
                      "${PROJECT_BINARY_DIR}/_ale first (or `make ale`, which does both)")
endif()
message(STATUS "ALE: ${NE_ALE_DIR}; ROMs: ${NE_ALE_ROMS}")

enable_language(CXX)
file(GLOB _ne_ale_src CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/envs/ale/*.c ${PROJECT_SOURCE_DIR}/src/envs/ale/*.cpp)
target_sources(neuroevo PRIVATE ${_ne_ale_src})
# ALE's headers use std::filesystem and std::optional; C++17 is a superset for the Box2D shim too
set_target_properties(neuroevo PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
# the headers include each other as "ale/..." from the prefix's include/ (system: not our warnings)
target_include_directories(neuroevo SYSTEM PRIVATE "${NE_ALE_DIR}/include")
target_link_libraries(neuroevo PUBLIC ale::ale-lib)
target_compile_definitions(neuroevo PUBLIC NE_HAVE_ALE=1 PRIVATE NE_ALE_ROMS="${NE_ALE_ROMS}")

# tests/ale/: C tests and the comparison with ale-py + Gymnasium, label "ale"
file(GLOB _ne_ale_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/ale/test_*.c)
foreach(src ${_ne_ale_tests})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE neuroevo)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS "ale")
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
    ENVIRONMENT "NEUROEVO_BIN=$<TARGET_FILE:neuroevo_cli>;NEUROEVO_ALE_TRACE=$<TARGET_FILE:ale_trace>;NEUROEVO_ALE_ROMS=${NE_ALE_ROMS}")
endforeach()
