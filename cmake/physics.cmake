# Physics envs and rendering: finds MuJoCo, Box2D, giflib, FFmpeg's libraries (MP4) and a headless
# OpenGL (OSMesa / EGL),
# adds src/envs/mujoco, src/envs/box2d and the GL/GIF parts of rendering to the `neuroevo` target
# when their library is there, and says so through NE_HAVE_* compile definitions. Included by the
# top-level CMakeLists.txt after add_library(neuroevo). scripts/install-deps installs all of them
# (Box2D: scripts/build-box2d builds it), so CI always builds every family; a developer without one
# still gets a working build.
#
# MuJoCo: the C library and headers shipped inside PyPI's `mujoco` wheel (mujoco/libmujoco.so.*,
# mujoco/include/mujoco/*.h) — the very binary Gymnasium's Python envs step, so the comparison in
# tests/py_mujoco_compare.py can be exact. Debian's libmujoco-dev (2.2.2) is too old for Gymnasium
# v5's models. Override with -DNE_MUJOCO_DIR=/path/to/site-packages/mujoco.
# The model XMLs are read at run time from the installed gymnasium package (never copied into the
# repository); the folder is found here and compiled in as NE_MUJOCO_ASSETS (overridable at run
# time with the NEUROEVO_MUJOCO_ASSETS environment variable).
#
# `pip install .` (scikit-build-core, SKBUILD set) builds in an isolated environment whose only
# packages are pyproject.toml's build requirements: `mujoco-core` there supplies the library and
# headers, which are copied into the build tree (so the build never points into pip's temporary
# environment, and a kept build-dir stays incremental); the installed extension and CLI find the
# runtime `mujoco` package's copy through their rpath or the package's preload. Gymnasium is no
# build requirement, so a wheel compiles in no model folder: the package sets
# NEUROEVO_MUJOCO_ASSETS from the gymnasium it runs with. NE_REQUIRE_MUJOCO (on in pip builds)
# turns a missing MuJoCo into a configure error instead of a build without the MuJoCo envs.

find_package(Python3 COMPONENTS Interpreter)

# the folder holding a Python package's __init__.py, without importing it
function(ne_python_package_dir module out)
  set(${out} "" PARENT_SCOPE)
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
      "import importlib.util as u, os; s = u.find_spec('${module}'); print(os.path.dirname(s.origin) if s and s.origin else '')"
    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND dir)
    set(${out} "${dir}" PARENT_SCOPE)
  endif()
endfunction()

# ---- MuJoCo ------------------------------------------------------------------------------------
set(NE_MUJOCO_DIR "" CACHE PATH "Folder with libmujoco.so.* and include/mujoco (default: the pip `mujoco` package)")
set(NE_MUJOCO_ASSETS "" CACHE PATH "Gymnasium's MuJoCo model folder (default: gymnasium/envs/mujoco/assets)")
option(NE_REQUIRE_MUJOCO "Fail the configuration when MuJoCo is not found (pyproject.toml sets it)" OFF)
set(_ne_mj_dir "${NE_MUJOCO_DIR}")
if(NOT _ne_mj_dir AND NOT CMAKE_CROSSCOMPILING)  # the pip package's library is the build machine's
  ne_python_package_dir(mujoco _ne_mj_dir)
endif()
set(_ne_mj_assets "${NE_MUJOCO_ASSETS}")
if(NOT _ne_mj_assets AND NOT SKBUILD)  # a wheel gets its model folder at run time (see above)
  ne_python_package_dir(gymnasium _ne_gym_dir)
  if(_ne_gym_dir AND EXISTS "${_ne_gym_dir}/envs/mujoco/assets/hopper.xml")
    set(_ne_mj_assets "${_ne_gym_dir}/envs/mujoco/assets")
  endif()
endif()
set(NE_MUJOCO_LIB "")
if(_ne_mj_dir AND EXISTS "${_ne_mj_dir}/include/mujoco/mujoco.h")
  # the wheel ships libmujoco.so.X.Y.Z only (no unversioned symlink)
  file(GLOB _ne_mj_libs "${_ne_mj_dir}/libmujoco.so*")
  list(SORT _ne_mj_libs)
  list(LENGTH _ne_mj_libs _ne_n)
  if(_ne_n GREATER 0)
    list(GET _ne_mj_libs 0 NE_MUJOCO_LIB)
  endif()
endif()
if(NE_MUJOCO_LIB AND SKBUILD)
  # pip's build environment is temporary: build against a copy with a stable path
  set(_ne_mj_copy "${PROJECT_BINARY_DIR}/mujoco")
  file(COPY "${_ne_mj_dir}/include/mujoco" DESTINATION "${_ne_mj_copy}/include")
  file(COPY "${NE_MUJOCO_LIB}" DESTINATION "${_ne_mj_copy}")
  get_filename_component(_ne_mj_name "${NE_MUJOCO_LIB}" NAME)
  set(_ne_mj_dir "${_ne_mj_copy}")
  set(NE_MUJOCO_LIB "${_ne_mj_copy}/${_ne_mj_name}")
endif()
if(NE_MUJOCO_LIB AND (_ne_mj_assets OR SKBUILD))
  message(STATUS "MuJoCo: ${NE_MUJOCO_LIB}; models: ${_ne_mj_assets}")
  add_library(ne_mujoco SHARED IMPORTED)
  set_target_properties(ne_mujoco PROPERTIES IMPORTED_LOCATION "${NE_MUJOCO_LIB}"
    IMPORTED_NO_SONAME FALSE INTERFACE_INCLUDE_DIRECTORIES "${_ne_mj_dir}/include")
  file(GLOB _ne_mj_src CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/envs/mujoco/*.c)
  target_sources(neuroevo PRIVATE ${_ne_mj_src})
  target_link_libraries(neuroevo PUBLIC ne_mujoco)
  target_compile_definitions(neuroevo PUBLIC NE_HAVE_MUJOCO=1 PRIVATE NE_MUJOCO_ASSETS="${_ne_mj_assets}")
  set(NE_HAVE_MUJOCO ON)
  set(NE_MUJOCO_ASSETS_FOUND "${_ne_mj_assets}")  # tests/CMakeLists.txt: test_mujoco's model folder
elseif(NE_REQUIRE_MUJOCO)
  message(FATAL_ERROR "MuJoCo not found, and NE_REQUIRE_MUJOCO is on (as in `pip install .`): "
    "no libmujoco.so.* with include/mujoco/mujoco.h in '${_ne_mj_dir}' "
    "(NE_MUJOCO_DIR, else the `mujoco` Python package of ${Python3_EXECUTABLE}). pip installs the "
    "build requirement mujoco-core from pyproject.toml: check that pip can reach it (or a wheel "
    "cache with --find-links). To build without the MuJoCo envs on purpose: "
    "pip install . -C cmake.define.NE_REQUIRE_MUJOCO=OFF")
else()
  message(STATUS "MuJoCo not found (run scripts/install-deps): the MuJoCo envs are not built")
  set(NE_HAVE_MUJOCO OFF)
endif()

# ---- Box2D 2.3, the engine Gymnasium's pybox2d 2.3.10 wheel runs: scripts/build-box2d builds it from
# pybox2d's source distribution into a cache keyed by the version, .deps/box2d-<version>/install in
# the source tree (shared by the release and ASan builds; `make build` / `run` / `test` call the
# script first). A configure that finds no library there runs the script itself (about 20 s,
# network for pip), so a plain cmake or `pip install .` gets the Box2D envs too; if that fails,
# the build goes on without them. Behind the extern "C" shim src/envs/box2d/b2shim.cpp.
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/build-box2d" _ne_b2_version REGEX "^VERSION=")
string(REGEX REPLACE "^VERSION=([0-9.]+).*" "\\1" _ne_b2_version "${_ne_b2_version}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/scripts/build-box2d")
# (an empty cache entry, not the derived path: a version bump then moves a configured build along)
set(NE_BOX2D_DIR "" CACHE PATH "Install prefix of the Box2D 2.3 library (empty: .deps/box2d-<version>/install)")
set(_ne_b2_prefix "${NE_BOX2D_DIR}")
if(NOT _ne_b2_prefix)
  # a cross build gets a cache of its own, built by the toolchain file's g++ and ar (NE_BOX2D_CXX,
  # NE_BOX2D_AR: cmake/aarch64-linux-gnu.cmake) whichever compiler builds neuroevo
  set(_ne_b2_cache "${PROJECT_SOURCE_DIR}/.deps/box2d-${_ne_b2_version}")
  set(_ne_b2_env "")
  if(CMAKE_CROSSCOMPILING AND NE_BOX2D_CXX)
    string(APPEND _ne_b2_cache "-${CMAKE_SYSTEM_PROCESSOR}")
    set(_ne_b2_env "CXX=${NE_BOX2D_CXX}" "AR=${NE_BOX2D_AR}")
  endif()
  set(_ne_b2_prefix "${_ne_b2_cache}/install")
  if(NOT EXISTS "${_ne_b2_prefix}/lib/libBox2D.a")
    message(STATUS "Box2D ${_ne_b2_version}: not built yet, running scripts/build-box2d")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env ${_ne_b2_env} "${PROJECT_SOURCE_DIR}/scripts/build-box2d"
                            "${_ne_b2_cache}" RESULT_VARIABLE _ne_b2_rc)
  endif()
endif()
if(EXISTS "${_ne_b2_prefix}/lib/libBox2D.a" AND EXISTS "${_ne_b2_prefix}/include/Box2D/Box2D.h")
  message(STATUS "Box2D: ${_ne_b2_prefix}")
  enable_language(CXX)
  add_library(ne_box2d STATIC IMPORTED)
  # SYSTEM: Box2D's headers are not held to our warnings
  set_target_properties(ne_box2d PROPERTIES IMPORTED_LOCATION "${_ne_b2_prefix}/lib/libBox2D.a"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_ne_b2_prefix}/include")
  file(GLOB _ne_b2_src CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/envs/box2d/*.c ${PROJECT_SOURCE_DIR}/src/envs/box2d/*.cpp)
  target_sources(neuroevo PRIVATE ${_ne_b2_src})
  # the shim alone is C++ (C++11 is enough for Box2D 2.3's headers; cmake/ale.cmake raises it to 17)
  set_target_properties(neuroevo PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(neuroevo SYSTEM PRIVATE "${_ne_b2_prefix}/include")
  target_link_libraries(neuroevo PUBLIC ne_box2d)
  target_compile_definitions(neuroevo PUBLIC NE_HAVE_BOX2D=1)
  set(NE_HAVE_BOX2D ON)
else()
  message(WARNING "Box2D ${_ne_b2_version} not in ${_ne_b2_prefix} (scripts/build-box2d builds it): "
                  "LunarLander and BipedalWalker are not built")
  set(NE_HAVE_BOX2D OFF)
endif()

# ---- rendering: giflib for GIFs, a headless OpenGL for MuJoCo's offscreen renderer ------------------
find_package(GIF QUIET)
if(GIF_FOUND)
  target_link_libraries(neuroevo PUBLIC GIF::GIF)
  target_compile_definitions(neuroevo PUBLIC NE_HAVE_GIFLIB=1)
else()
  message(STATUS "giflib not found (run scripts/install-deps): `neuroevo render` cannot write GIFs")
endif()
# FFmpeg's libraries (Debian libavcodec-dev, libavformat-dev, libswscale-dev) for .mp4 videos
# (src/report/video_mp4.c); without them `neuroevo render --out x.mp4` is a clear error
# (pkg-config is found by the top-level CMakeLists.txt). Only their headers at build time: the
# writer dlopens the libraries at its first use (src/report/libav_api.c), because linking them
# costs every process ~28 ms of start-up (~130 shared libraries).
pkg_check_modules(LIBAV QUIET libavformat libavcodec libswscale libavutil)
if(LIBAV_FOUND)
  target_sources(neuroevo PRIVATE ${PROJECT_SOURCE_DIR}/src/report/libav_api.c)
  target_include_directories(neuroevo PRIVATE ${LIBAV_INCLUDE_DIRS})
  target_link_libraries(neuroevo PUBLIC ${CMAKE_DL_LIBS})
  target_compile_definitions(neuroevo PUBLIC NE_HAVE_LIBAV=1)
else()
  message(STATUS "libavcodec/libavformat/libswscale not found (run scripts/install-deps): `neuroevo render` cannot write MP4s")
endif()
# MuJoCo's renderer needs a current OpenGL context; src/envs/mujoco/mj_render.c dlopens libEGL or
# libOSMesa at run time (MUJOCO_GL=egl|osmesa), so neither is a link-time dependency
if(NE_HAVE_MUJOCO)
  target_link_libraries(neuroevo PUBLIC ${CMAKE_DL_LIBS})
endif()
