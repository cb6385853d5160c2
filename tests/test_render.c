// SPDX-License-Identifier: MIT
// Unit tests of rendering (src/report/render.c, src/envs/raster.c, src/envs/classic/render.c): classic-control
// and Box2D frames are drawn, are not blank and change as the env moves; ne_render_episodes writes
// a GIF that giflib's own reader decodes into frames of the asked size that differ; bad output
// names and unsupported envs give errors, and a failed recording leaves no file. MuJoCo's OpenGL
// rendering is checked end to end by tests/e2e_render.sh.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>  // mkstemp
#include <unistd.h>

#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/render.h"
#include "test.h"

#ifdef NE_HAVE_GIFLIB
#include <gif_lib.h>  // DGifOpenFileName, DGifSlurp: the standard decoder
#endif

#define W 160
#define H 120

static ne_env_spec* make_env(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  int rc = ne_env_make(id, NULL, &spec, err);
  if (rc) TEST_FAIL("ne_env_make(%s): %d %s", id, rc, err);
  return spec;
}

// number of distinct colours among the first pixels (capped), and whether two frames differ
static int colours(const unsigned char* f) {
  uint32_t seen[8];
  int n = 0;
  for (int i = 0; i < W * H && n < 8; i++) {
    uint32_t c = (uint32_t)f[3 * i] << 16 | (uint32_t)f[3 * i + 1] << 8 | f[3 * i + 2];
    int k = 0;
    while (k < n && seen[k] != c) k++;
    if (k == n) seen[n++] = c;
  }
  return n;
}

static void test_frames_drawn_and_moving(void) {
  const char* ids[] = {
      "CartPole-v1",
      "Acrobot-v1",
      "MountainCar-v0",
      "Pendulum-v1",
#ifdef NE_HAVE_BOX2D
      "LunarLanderContinuous-v3",
#endif
  };
  static unsigned char f1[W * H * 3], f2[W * H * 3];
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
    ne_env_spec* spec = make_env(ids[k]);
    ne_env_state* st = ne_env_state_create(spec);
    ASSERT(ne_env_can_render(spec));
    ASSERT_EQ(ne_env_reset(spec, st, 4), 0);
    void* ctx = NULL;
    ASSERT_EQ(ne_env_render(spec, st, &ctx, f1, W, H, NULL), 0);
    float act[NE_ENV_MAX_ACT] = {1, 1};
    ne_step_out out = {0, 0, 0};
    for (int t = 0; t < 15 && !out.terminated; t++) ASSERT_EQ(ne_env_step(spec, st, act, &out), 0);
    ASSERT_EQ(ne_env_render(spec, st, &ctx, f2, W, H, NULL), 0);
    if (colours(f1) < 2) TEST_FAIL("%s: a blank frame", ids[k]);
    if (memcmp(f1, f2, sizeof f1) == 0) TEST_FAIL("%s: the frame did not change in 15 steps", ids[k]);
    ne_env_render_free(spec, ctx);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

static void test_render_errors(void) {
  ne_env_spec* spec = make_env("CartPole-v1");
  ne_policy_spec pol;
  int hidden[1] = {4};
  ASSERT_EQ(ne_policy_spec_init(&pol, 4, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL),
            0);
  float* params = ne_calloc(pol.n_params, sizeof(float));
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_render_episodes(spec, &pol, params, NULL, NULL, "agent.avi", NULL, err), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(err, "*.gif or *.mp4");
  ne_render_options o = {.width = 5000, .height = 100, .episodes = 1};
  ASSERT_EQ(ne_render_episodes(spec, &pol, params, NULL, &o, "x.gif", NULL, err), NE_EINVAL);
  ASSERT_EQ(ne_render_episodes(spec, &pol, params, NULL, NULL, "/nonexistent-dir/a.gif", NULL, err), NE_EIO);
  ASSERT_NE(access("/nonexistent-dir/a.gif", F_OK), 0);
  // yuv420p needs even sides; an uncreatable MP4 is an I/O error and leaves nothing
  ne_render_options odd = {.width = 121, .height = 80, .episodes = 1};
  ASSERT_EQ(ne_render_episodes(spec, &pol, params, NULL, &odd, "/nonexistent-dir/a.mp4", NULL, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "got 121x80 (e.g. 120x80)");
  ASSERT_EQ(ne_render_episodes(spec, &pol, params, NULL, NULL, "/nonexistent-dir/a.mp4", NULL, err), NE_EIO);
  ASSERT_NE(access("/nonexistent-dir/a.mp4", F_OK), 0);
  ne_free(params);
  ne_env_spec_destroy(spec);
}

#ifdef NE_HAVE_LIBAV
// the MP4 writer alone: frames in, a file that opens with an ISO-BMFF `ftyp` box out (decoding is
// checked with ffprobe in e2e_render.sh)
static void test_mp4_writes(void) {
  ASSERT_EQ(ne_mp4_available(), 1);
  char path[] = "/tmp/ne_test_render_XXXXXX.mp4";
  int fd = mkstemps(path, 4);
  ASSERT_GE(fd, 0);
  close(fd);
  ne_mp4* v = NULL;
  char err[NE_ERRSTR_LEN] = "";
  if (ne_mp4_open(path, W, H, 25, &v, err)) TEST_FAIL("open: %s", err);
  static unsigned char rgb[W * H * 3];
  for (int k = 0; k < 10; k++) {
    for (int i = 0; i < W * H * 3; i++) rgb[i] = (unsigned char)(i * 7 + k * 40);
    if (ne_mp4_add_frame(v, rgb, err)) TEST_FAIL("frame %d: %s", k, err);
  }
  if (ne_mp4_close(v, err)) TEST_FAIL("close: %s", err);
  FILE* f = fopen(path, "rb");
  ASSERT(f);
  unsigned char head[8];
  ASSERT_EQ(fread(head, 1, 8, f), 8);
  fseek(f, 0, SEEK_END);
  ASSERT_GE(ftell(f), 1000);
  fclose(f);
  ASSERT(memcmp(head + 4, "ftyp", 4) == 0);
  remove(path);
}
#else
// CI installs FFmpeg's libraries through scripts/install-deps: a build without them fails here
static void test_mp4_writes(void) {
  ASSERT_EQ(ne_mp4_available(), 0);
  TEST_FAIL("libavcodec/libavformat/libswscale were not found at configure time: run scripts/install-deps");
}
#endif

#ifdef NE_HAVE_GIFLIB
// the RGB of pixel i of decoded image k
static void pixel(const GifFileType* g, int k, int i, unsigned char* rgb) {
  const SavedImage* im = &g->SavedImages[k];
  const ColorMapObject* map = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
  GifColorType c = map->Colors[im->RasterBits[i]];
  rgb[0] = c.Red, rgb[1] = c.Green, rgb[2] = c.Blue;
}

// progress callback: checks that frames arrive one by one, keeps the last count and the total
static void count_frames(void* user, int frames, int total) {
  int* seen = user;
  ASSERT_EQ(frames, seen[0] + 1);
  ASSERT_GE(total, frames);
  seen[0] = frames;
  seen[1] = total;
}

// a two-episode CartPole recording decodes into W x H frames that differ
static void test_gif_decodes(void) {
  ne_env_spec* spec = make_env("CartPole-v1");
  ne_policy_spec pol;
  int hidden[1] = {8};
  ASSERT_EQ(ne_policy_spec_init(&pol, 4, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL),
            0);
  float* params = ne_malloc(pol.n_params * sizeof(float));
  ne_policy_init_params(&pol, 3, params);
  char path[] = "/tmp/ne_test_render_XXXXXX.gif";
  int fd = mkstemps(path, 4);
  ASSERT_GE(fd, 0);
  close(fd);
  int seen[2] = {0, 0};  // progress: frames so far, total
  ne_render_stats stats;
  ne_render_options o = {.width = W,
                         .height = H,
                         .episodes = 2,
                         .seed = 5,
                         .max_frames = 40,
                         .fps = 25,
                         .progress = count_frames,
                         .progress_user = seen,
                         .stats = &stats};
  double returns[2] = {0, 0};
  char err[NE_ERRSTR_LEN] = "";
  int rc = ne_render_episodes(spec, &pol, params, NULL, &o, path, returns, err);
  if (rc) TEST_FAIL("render: %s", err);
  ASSERT_GE(returns[0], 1);
  ASSERT_GE(returns[1], 1);
  // progress was told of every frame, and the stats count what was written and stepped
  ASSERT_EQ(seen[0], seen[1]);
  ASSERT_EQ(stats.frames, seen[0]);
  ASSERT_EQ(stats.steps, (long)(returns[0] + returns[1]));  // CartPole: one reward per step
  ASSERT_GE(stats.step_s, 0);
  ASSERT_GT(stats.draw_s, 0);
  ASSERT_GT(stats.encode_s, 0);

  int gerr = 0;
  GifFileType* g = DGifOpenFileName(path, &gerr);
  ASSERT(g);
  ASSERT_EQ(DGifSlurp(g), GIF_OK);
  ASSERT_EQ(g->SWidth, W);
  ASSERT_EQ(g->SHeight, H);
  ASSERT_GE(g->ImageCount, 2);
  ASSERT_LE(g->ImageCount, 40);
  ASSERT_EQ(g->ImageCount, stats.frames);
  int differ = 0;
  for (int i = 0; i < W * H && !differ; i++) {
    unsigned char a[3], b[3];
    pixel(g, 0, i, a);
    pixel(g, g->ImageCount - 1, i, b);
    differ = memcmp(a, b, 3) != 0;
  }
  ASSERT(differ);
  DGifCloseFile(g, &gerr);
  remove(path);
  ne_free(params);
  ne_env_spec_destroy(spec);
}
#else
// CI installs giflib through scripts/install-deps: a build without it fails here instead of skipping
static void test_gif_decodes(void) { TEST_FAIL("giflib was not found at configure time: run scripts/install-deps"); }
#endif

// A novelty run's archive.csv is read back row by row; a bad row names its line; behaviours are
// refused for an env that cannot draw them before any episode runs.
static void test_behaviours_file(void) {
  char path[] = "/tmp/ne_test_archive_XXXXXX";
  int fd = mkstemp(path);
  ASSERT(fd >= 0);
  const char good[] = "b0,b1\n36.5,184\n-1e-3,2.25e2\n";
  ASSERT_EQ(write(fd, good, sizeof good - 1), (ssize_t)(sizeof good - 1));
  close(fd);
  float* pts = NULL;
  int n = 0, dim = 0;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_render_read_behaviours(path, &pts, &n, &dim, err), 0);
  ASSERT_EQ(n, 2);
  ASSERT_EQ(dim, 2);
  ASSERT(pts[0] == 36.5f && pts[1] == 184.0f && pts[2] == -1e-3f && pts[3] == 225.0f);
  ne_free(pts);
  FILE* f = fopen(path, "w");
  fputs("b0,b1\n1,2\n3\n", f);
  fclose(f);
  ASSERT_EQ(ne_render_read_behaviours(path, &pts, &n, &dim, err), NE_EPARSE);
  ASSERT_CONTAINS(err, ":3: expected 2 numbers");
  f = fopen(path, "w");
  fputs("x,y\n1,2\n", f);
  fclose(f);
  ASSERT_EQ(ne_render_read_behaviours(path, &pts, &n, &dim, err), NE_EPARSE);
  ASSERT_CONTAINS(err, ":1: expected a header");
  unlink(path);
  ASSERT_EQ(ne_render_read_behaviours(path, &pts, &n, &dim, err), NE_ENOTFOUND);
  // CartPole draws frames but no behaviours
  ne_env_spec* env = make_env("CartPole-v1");
  ne_policy_spec p;
  char e2[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_policy_spec_init(&p, 4, NULL, 0, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, e2), 0);
  float params[16] = {0};
  const float xy[2] = {1, 2};
  ne_render_options o = {
      .width = W, .height = H, .episodes = 1, .behaviours = xy, .n_behaviours = 1, .behaviour_dim = 2};
  ASSERT_EQ(ne_render_episodes(env, &p, params, NULL, &o, "/tmp/ne_test_never.gif", NULL, e2), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(e2, "no drawing of behaviours");
  ASSERT(access("/tmp/ne_test_never.gif", F_OK) != 0);
  ne_env_spec_destroy(env);
}

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_behaviours_file), TEST_ENTRY(test_frames_drawn_and_moving),
      TEST_ENTRY(test_render_errors),   TEST_ENTRY(test_gif_decodes),
      TEST_ENTRY(test_mp4_writes),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
