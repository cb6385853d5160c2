#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end checks of `neuroevo render`: a trained CartPole agent and a (briefly trained) MuJoCo
# InvertedPendulum agent through OSMesa are recorded into GIF files that start with the GIF89a
# signature and hold several frames (by default into RUN_DIR/agent.gif, which the report embeds); the CartPole agent into an MP4 that ffprobe decodes; a Box2D
# agent renders too; bad usage exits 2 and leaves no file. Usage: e2e_render.sh NEUROEVO_BIN SCRATCH_DIR
set -u
BIN=${1:?usage: e2e_render.sh NEUROEVO_BIN SCRATCH_DIR}
TMP=${2:?usage: e2e_render.sh NEUROEVO_BIN SCRATCH_DIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E2E_KEEP_GOING=1  # every failed check is reported, then the script fails
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# gif_ok FILE MIN_FRAMES: GIF89a signature and at least MIN_FRAMES image descriptors (0x2C after a
# graphics control block: the bytes 00 2C 00 00 00 00 open every full-frame image here)
gif_ok() {
  [ -s "$1" ] || { fail "$1 missing or empty"; return; }
  [ "$(head -c 6 "$1")" = "GIF89a" ] || fail "$1 lacks the GIF89a signature"
  local n
  n=$(od -An -v -tx1 "$1" | tr -d ' \n' | grep -o '002c00000000' | wc -l)
  [ "$n" -ge "$2" ] || fail "$1 has $n frames, expected >= $2"
}

# a short training run of a config with overrides; prints the run directory
train() {
  "$BIN" run "$@" >"$TMP/train.out" 2>&1 || { fail "run $* failed: $(tail -3 "$TMP/train.out")"; return; }
  sed -n 's/^run directory: *//p' "$TMP/train.out" | tail -1
}

# classic control: the default experiment, rendered
RUN=$(train cartpole-ga run.generations=3)
if [ -n "$RUN" ]; then
  "$BIN" render "$RUN" --out cartpole.gif --size 120x80 --max-frames 30 >out 2>err || fail "render cartpole: $(cat err)"
  grep -q "CartPole-v1: wrote cartpole.gif" out || fail "render cartpole printed: $(cat out)"
  gif_ok cartpole.gif 10
fi

# without --out, render RUN_DIR writes RUN_DIR/agent.gif, which `neuroevo report RUN_DIR` embeds
if [ -n "$RUN" ]; then
  "$BIN" render "$RUN" --size 60x40 --max-frames 5 >out 2>err || fail "render without --out: $(cat err)"
  grep -q "wrote $RUN/agent.gif" out || fail "render without --out printed: $(cat out)"
  gif_ok "$RUN/agent.gif" 3
  [ ! -e agent.gif ] || fail "render RUN_DIR wrote ./agent.gif instead of RUN_DIR/agent.gif"
  "$BIN" report "$RUN" --episodes 1 --out report.html >out 2>err || fail "report: $(cat err)"
  grep -q 'src="data:image/gif;base64,' report.html || fail "the report did not embed the rendered agent.gif"
fi

# MP4 through FFmpeg's libraries: ffprobe decodes every frame (the whole episode: --max-frames is
# above CartPole's 500 steps, so frames = return + 1), the size is the asked one, the pixel format
# yuv420p, and the frames differ (more than one distinct hash from ffmpeg's framemd5)
# (loaded at the writer's first use: linked, their ~130 libraries cost every command ~28 ms at start)
if [ -n "$RUN" ]; then
  command -v ffprobe >/dev/null || fail "ffprobe missing (scripts/install-deps installs ffmpeg)"
  ! ldd "$BIN" | grep -q libavcodec || fail "$BIN links libavcodec: it should dlopen it (src/report/libav_api.h)"
  "$BIN" render "$RUN" --out cartpole.mp4 --size 120x80 --max-frames 600 >out 2>err || fail "render mp4: $(cat err)"
  ret=$(sed -n 's/.*wrote cartpole.mp4 (return \([0-9]*\)\.00)$/\1/p' out)
  [ -n "$ret" ] || fail "render mp4 printed: $(cat out)"
  probe=$(ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,width,height,pix_fmt,nb_read_frames -of csv=p=0 cartpole.mp4)
  case "$probe" in h264,120,80,yuv420p,*|mpeg4,120,80,yuv420p,*) ;; *) fail "ffprobe cartpole.mp4: '$probe'" ;; esac
  [ "${probe##*,}" = "$((ret + 1))" ] || fail "cartpole.mp4 has ${probe##*,} frames, expected $((ret + 1)) (return $ret)"
  distinct=$(ffmpeg -v error -i cartpole.mp4 -f framemd5 - | grep -v '^#' | awk -F, '{print $6}' | sort -u | wc -l)
  [ "$distinct" -gt 1 ] || fail "cartpole.mp4: all frames identical ($distinct distinct hashes)"
  # yuv420p needs even sides: refused before any episode runs, naming a size that works
  "$BIN" render "$RUN" --out odd.mp4 --size 121x80 >out 2>err; rc=$?
  [ $rc -eq 2 ] && grep -q "even width and height, got 121x80 (e.g. 120x80)" err || fail "odd mp4 size: rc $rc, $(cat err)"
  [ ! -e odd.mp4 ] || fail "a refused mp4 was left behind"
  "$BIN" render "$RUN" --out agent.avi >out 2>err; rc=$?
  [ $rc -eq 2 ] && grep -q "name the file \*.gif or \*.mp4" err || fail "unknown extension: rc $rc, $(cat err)"
fi

# Box2D: an untrained lander is enough to draw
RUN=$(train cartpole-ga env.id=LunarLander-v3 run.generations=1 ga.population=4 ga.truncation=2 ga.elite_episodes=1 env.max_episode_steps=40)
if [ -n "$RUN" ]; then
  "$BIN" render "$RUN" --out lander.gif --size 90x60 --max-frames 10 >out 2>err || fail "render lander: $(cat err)"
  gif_ok lander.gif 5
fi

# MuJoCo through its own renderer in an OSMesa context
RUN=$(train cartpole-ga env.id=InvertedPendulum-v5 run.generations=1 ga.population=4 ga.truncation=2 ga.elite_episodes=1 env.max_episode_steps=20)
if [ -n "$RUN" ]; then
  # Mesa's OSMesa keeps a few hundred bytes past its context's destruction; under ASan (make
  # test-asan) LeakSanitizer is told to ignore allocations made inside libOSMesa only
  printf 'leak:libOSMesa.so\n' >lsan.supp
  LSAN_OPTIONS="suppressions=$TMP/lsan.supp:print_suppressions=0" MUJOCO_GL=osmesa \
    "$BIN" render "$RUN" --out pendulum.gif --size 64x48 --max-frames 6 >out 2>err ||
    fail "render InvertedPendulum (osmesa): $(cat err)"
  gif_ok pendulum.gif 3
  # progress while it draws (stderr is not a terminal here: a line per tenth), then where the time went
  grep -q "^rendering InvertedPendulum-v5: frame [0-9]*/[0-9]*$" err || fail "no render progress: $(cat err)"
  grep -q "^[0-9]* frames of [0-9]* steps: physics .* s, drawing .* s (.* ms a frame), encoding .* s$" err ||
    fail "no render timing: $(cat err)"
  MUJOCO_GL=glfw "$BIN" render "$RUN" --out glfw.gif >out 2>err && fail "MUJOCO_GL=glfw was accepted"
  grep -q "headless" err || fail "MUJOCO_GL=glfw error: $(cat err)"
  [ ! -e glfw.gif ] || fail "a failed render left glfw.gif behind"
fi

# usage errors
"$BIN" render >out 2>err && fail "render without arguments succeeded"
"$BIN" render --genome nothing.genome --size 10 >out 2>err; [ $? -eq 2 ] || fail "--size 10 did not exit 2"
"$BIN" render --help | grep -q "animated GIF" || fail "render --help"

e2e_finish e2e_render
