// SPDX-License-Identifier: MIT
// Videos of agents: an animated-GIF writer (giflib), an MP4 writer (FFmpeg's libraries: H.264, else
// MPEG-4 part 2) and the loop that records a policy's episodes into a file, frame by frame from
// env.h's ne_env_render (MuJoCo's offscreen renderer, the Box2D and classic-control drawings). For
// humans looking at results, never on a training path: rendering allocates, and MuJoCo's needs an
// OpenGL context (EGL or OSMesa, chosen by MUJOCO_GL).
#ifndef NEUROEVO_RENDER_H
#define NEUROEVO_RENDER_H

#include <stdint.h>

#include "neuroevo/algo.h"  // ne_batch (observation normalization)
#include "neuroevo/env.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

// An animated GIF being written, one frame at a time (each frame gets its own 256-colour palette,
// median-cut by giflib). Owned by the caller until ne_gif_close.
typedef struct ne_gif ne_gif;

// Creates path and writes the header of a looping width x height animation showing each frame for
// delay_cs hundredths of a second. NE_EUNSUPPORTED when built without giflib. Caller finishes it
// with ne_gif_close. Nullable: errstr.
int ne_gif_open(const char* path, int width, int height, int delay_cs, ne_gif** out, char* errstr);

// Appends one RGB frame (width * height * 3 bytes, top row first). Nullable: errstr.
int ne_gif_add_frame(ne_gif* gif, const unsigned char* rgb, char* errstr);

// Writes the trailer, closes the file and frees gif (also after a failed add). Nullable: gif, errstr.
int ne_gif_close(ne_gif* gif, char* errstr);

// An MP4 video being written, one frame at a time (yuv420p; H.264 through libx264 where libavcodec
// has it, else MPEG-4 part 2). Owned by the caller until ne_mp4_close.
typedef struct ne_mp4 ne_mp4;

// 1 if this build writes MP4s (FFmpeg's libraries were found at configure time), else 0.
int ne_mp4_available(void);

// Creates path and starts a width x height video at fps frames per second. Width and height must be
// even (yuv420p): NE_EINVAL naming the nearest even size otherwise. NE_EUNSUPPORTED when built
// without FFmpeg's libraries. Caller finishes it with ne_mp4_close. Nullable: errstr.
int ne_mp4_open(const char* path, int width, int height, int fps, ne_mp4** out, char* errstr);

// Encodes one RGB frame (width * height * 3 bytes, top row first). Nullable: errstr.
int ne_mp4_add_frame(ne_mp4* mp4, const unsigned char* rgb, char* errstr);

// Drains the encoder, writes the trailer, closes the file and frees mp4 (also after a failed add).
// Nullable: mp4, errstr.
int ne_mp4_close(ne_mp4* mp4, char* errstr);

// Where a recording's time went (seconds of wall-clock time), filled by ne_render_episodes.
typedef struct ne_render_stats {
  int frames;       // frames written
  long steps;       // env steps of one pass (each pass runs every step)
  double step_s;    // both passes' env steps and policy forwards (the physics)
  double draw_s;    // drawing the frames (the env's renderer: OpenGL for MuJoCo, its start included)
  double encode_s;  // quantizing and writing (GIF) or encoding (MP4) them
} ne_render_stats;

// What ne_render_episodes records; zero fields take the defaults.
typedef struct ne_render_options {
  int width, height;  // frame size in pixels (default 400 x 300)
  int episodes;       // episodes recorded one after another (default 1)
  uint64_t seed;      // episode e starts from ne_seed_derive(seed, 0, e, NE_PURPOSE_EVAL), as in eval
  int max_frames;     // at most this many frames in all; later steps are skipped evenly (default 500)
  int fps;            // playback frames per second (default 30)
  // called after every frame written with the frames so far and the total (NULL: none)
  void (*progress)(void* user, int frames, int total);
  void* progress_user;     // handed to progress
  ne_render_stats* stats;  // where the time went (NULL: not wanted)
  // behaviour characterizations drawn over every frame (a novelty run's archive.csv; envs whose
  // ne_env_can_draw_behaviours holds, e.g. the maze's final positions): n_behaviours rows of
  // behaviour_dim floats. Nullable: behaviours (none)
  const float* behaviours;
  int n_behaviours;
  int behaviour_dim;
} ne_render_options;

// Reads a novelty run's archive.csv (a header b0,b1,... then one behaviour per row) into a new
// array (caller frees *out with ne_free): *n rows of *dim floats. NE_ENOTFOUND when the file does
// not exist, NE_EPARSE naming the file and line of a bad row, NE_ENOMEM. Nullable: errstr.
int ne_render_read_behaviours(const char* path, float** out, int* n, int* dim, char* errstr);

// Runs `episodes` of the policy (parameters params, observations normalized by norm) and writes
// their frames (with options->behaviours drawn over each) to path: an animated GIF for *.gif, an MP4
// video for *.mp4 (NE_EUNSUPPORTED for
// other names, or for .mp4 in a build without FFmpeg's libraries). returns (episodes values) receives each episode's
// return. Nullable: norm, returns, errstr.
int ne_render_episodes(const ne_env_spec* env, const ne_policy_spec* policy, const float* params, const ne_batch* norm,
                       const ne_render_options* options, const char* path, double* returns, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
