#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The steps of deploy/docker/Dockerfile, one subcommand per step, so that each also runs (and is
# checked) outside a container, on a Debian machine like the image's:
#
#   image.sh build SRC STAGE     the build stage: SRC's scripts/install-deps (NEUROEVO_DEPS=image:
#                                the packages a build with every env family needs), build-box2d and
#                                build-ale, then CMake with ALE, MuJoCo and Box2D required; gathers
#                                into STAGE what the runtime needs: usr/local/bin/neuroevo,
#                                usr/local/lib/libmujoco.so.*, usr/local/share/neuroevo/{roms,mujoco,
#                                configs} (ale-py's ROMs, Gymnasium's MuJoCo models, the configs) and
#                                runtime-packages (the Debian packages of the libraries the binary
#                                links or opens at run time, and gnuplot for curve.png)
#   image.sh runtime STAGE ROOT  the runtime stage: installs STAGE's runtime-packages (apt-get, only
#                                those missing) and copies STAGE's usr/ into ROOT (/ in the image)
#   image.sh check PREFIX        the image's last check: the binary in PREFIX (/usr/local in the
#                                image) lists the Atari, MuJoCo and Box2D envs and runs a generation
#                                of frostbite-ga, hopper-ga and lander-ga with the data under PREFIX
#
# Every step prints what it does (a failing build shows its output, not /dev/null's).
set -euo pipefail

say() { echo "image.sh: $*"; }

build() {
  local src stage bdir
  src=$(cd "$1" && pwd)
  mkdir -p "$2"
  stage=$(cd "$2" && pwd)
  bdir=${BUILD_DIR:-$src/build-image}
  export NEUROEVO_DEPS=image
  say "packages (scripts/install-deps, the image's set)"
  "$src/scripts/install-deps"
  say "Box2D 2.3 (scripts/build-box2d)"
  "$src/scripts/build-box2d"
  say "ALE and the ROMs of ale-py's wheel (scripts/build-ale; its compiler log: .deps/ale-*/build.log)"
  "$src/scripts/build-ale"
  say "neuroevo: configure (ALE, MuJoCo and Box2D required)"
  cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DNE_ALE=ON -DNE_REQUIRE_MUJOCO=ON -DNE_PYTHON=OFF
  grep -q 'NE_HAVE_BOX2D=1' "$bdir/CMakeFiles/neuroevo.dir/flags.make" ||
    { echo "image.sh: the configure found no Box2D" >&2; exit 1; }
  say "neuroevo: build"
  cmake --build "$bdir" -j "$(nproc 2>/dev/null || echo 2)" --target neuroevo_cli
  local bin=$bdir/neuroevo
  "$bin" --version

  say "staging the runtime files in $stage"
  rm -rf "${stage:?}/usr"
  mkdir -p "$stage/usr/local/bin" "$stage/usr/local/lib" "$stage/usr/local/share/neuroevo"
  cp "$bin" "$stage/usr/local/bin/neuroevo"
  # MuJoCo: the library of the pip wheel the binary was linked with
  local mj
  mj=$(ldd "$bin" | awk '/libmujoco/ { print $3 }')
  [ -f "$mj" ] || { echo "image.sh: the binary does not link libmujoco" >&2; exit 1; }
  cp "$mj" "$stage/usr/local/lib/"
  # the ROMs (build-ale links ale-py's roms folder into its install prefix) and the MuJoCo models
  cp -rL "$src"/.deps/ale-*/install/roms "$stage/usr/local/share/neuroevo/roms"
  rm -rf "$stage/usr/local/share/neuroevo/roms/__pycache__" "$stage/usr/local/share/neuroevo/roms/__init__.py"
  cp -r "$(python3 -c 'import gymnasium, os; print(os.path.dirname(gymnasium.__file__))')/envs/mujoco/assets" \
    "$stage/usr/local/share/neuroevo/mujoco"
  cp -r "$src/configs" "$stage/usr/local/share/neuroevo/configs"
  say "$(find "$stage/usr/local/share/neuroevo/roms" -name '*.bin' | wc -l) ROMs, $(ls "$stage/usr/local/share/neuroevo/mujoco" | wc -l) MuJoCo model files, $(ls "$stage/usr/local/share/neuroevo/configs" | wc -l) configs"

  # the Debian packages owning the libraries the binary links (ldd) or opens at run time (the
  # sonames it names for dlopen: libmicrohttpd, FFmpeg's, EGL/OSMesa); dpkg knows a file by the
  # path its package installed, /lib or /usr/lib: try both. libc6 is in the base image.
  local libs so
  libs=$(ldd "$bin" | awk '/=> \// { print $3 }')
  for so in $(strings -a "$bin" | grep -E '^lib(microhttpd|avformat|avcodec|swscale|avutil|EGL|OSMesa)\.so\.[0-9]+$' | sort -u); do
    libs+=$'\n'$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
  done
  for f in $libs; do
    [ -n "$f" ] || continue
    dpkg -S "$f" 2>/dev/null || dpkg -S "$(realpath "$f")" 2>/dev/null || true
  done | cut -d: -f1 | sort -u | grep -v '^libc6$' > "$stage/runtime-packages" || true
  # curve.png (gnuplot and a font), headless MuJoCo rendering when the build found no OSMesa/EGL
  printf '%s\n' gnuplot-nox fonts-dejavu-core libosmesa6 >> "$stage/runtime-packages"
  sort -u -o "$stage/runtime-packages" "$stage/runtime-packages"
  say "runtime packages: $(tr '\n' ' ' < "$stage/runtime-packages")"
}

runtime() {
  local stage=$1 root=$2 missing=()
  for p in $(cat "$stage/runtime-packages"); do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
    rm -rf /var/lib/apt/lists/*
  else
    say "every runtime package is installed already"
  fi
  mkdir -p "$root"
  cp -a "$stage/usr" "$root/"
  # libmujoco in /usr/local/lib: the loader's cache (a ROOT other than / is checked with LD_LIBRARY_PATH)
  if [ "$root" = / ]; then ldconfig; fi
}

check() {
  local prefix work
  prefix=$(cd "$1" && pwd)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  export NEUROEVO_ALE_ROMS=$prefix/share/neuroevo/roms NEUROEVO_MUJOCO_ASSETS=$prefix/share/neuroevo/mujoco
  export NEUROEVO_CONFIG_PATH=$prefix/share/neuroevo/configs
  export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local bin=$prefix/bin/neuroevo envs
  "$bin" --version
  # the MuJoCo library under PREFIX, not the build machine's wheel (the binary's RUNPATH)
  ldd "$bin" | grep -q "libmujoco.* => $prefix/lib/" ||
    { echo "image.sh: neuroevo does not load $prefix/lib's libmujoco: $(ldd "$bin" | grep mujoco)" >&2; exit 1; }
  envs=$("$bin" envs)
  for id in ALE/Frostbite-v5 Hopper-v5 LunarLander-v3 BipedalWalker-v3; do
    echo "$envs" | grep -q "^$id " || { echo "image.sh: $id is not in \`neuroevo envs\`" >&2; exit 1; }
  done
  say "neuroevo envs lists the Atari, MuJoCo and Box2D families"
  for config in frostbite-ga hopper-ga lander-ga; do
    (cd "$work" && "$bin" run "$config" ga.population=4 ga.truncation=2 ga.elite_candidates=1 ga.elite_episodes=1 \
      run.generations=1 env.max_episode_steps=200 run.target=none run.plot_every=0 --threads 2 --out "$config" --quiet)
    [ "$(wc -l < "$work/$config/metrics.csv")" -eq 2 ] || { echo "image.sh: $config did not run" >&2; exit 1; }
    say "$config: one generation ($(tail -n 1 "$work/$config/metrics.csv" | cut -d, -f3) env steps)"
  done
}

case ${1:-} in
  build) build "${2:?usage: image.sh build SRC STAGE}" "${3:?usage: image.sh build SRC STAGE}" ;;
  runtime) runtime "${2:?usage: image.sh runtime STAGE ROOT}" "${3:?usage: image.sh runtime STAGE ROOT}" ;;
  check) check "${2:?usage: image.sh check PREFIX}" ;;
  *) echo "usage: image.sh build SRC STAGE | runtime STAGE ROOT | check PREFIX" >&2; exit 2 ;;
esac
