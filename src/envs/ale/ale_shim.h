// SPDX-License-Identifier: MIT
// A thin extern "C" face of the Arcade Learning Environment's C++ ALEInterface (ale_shim.cpp), so
// that the Atari family (ale.c) stays C. One ne_ale per env state; not thread-safe per instance.
// Errors (a missing or unreadable ROM) come back as NULL with a message, never as an exception.
#ifndef NEUROEVO_ENVS_ALE_SHIM_H
#define NEUROEVO_ENVS_ALE_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NE_ALE_H 210  // screen rows
#define NE_ALE_W 160  // screen columns

typedef struct ne_ale ne_ale;

// Loads rom_path into a fresh emulator with ALE's own sticky actions and frame skip off (the
// family does both per frame) and no frame limit. Caller frees with ne__ale_destroy. NULL with a
// message in errstr (errstr_size bytes) on failure.
ne_ale* ne__ale_create(const char* rom_path, char* errstr, size_t errstr_size);

// Frees the emulator. Nullable: ale.
void ne__ale_destroy(ne_ale* ale);

// Restarts the game from the console as loadROM left it (random generator included), then ALE's
// reset_game: the same start every time, like a fresh load with random_seed 0.
void ne__ale_reset(ne_ale* ale);

// Emulates one frame with a full-set action (0..17); returns the reward of that frame.
int ne__ale_act(ne_ale* ale, int action);

// 1 if the game is over.
int ne__ale_game_over(const ne_ale* ale);

// The current screen as 210x160 luminance bytes (ALE's grayscale palette) into out.
void ne__ale_gray(ne_ale* ale, uint8_t* out);

// The current screen's 210x160 palette indices, owned by the emulator (valid until the next act).
const uint8_t* ne__ale_screen(const ne_ale* ale);

// The current screen as 210x160 RGB pixels (ALE's NTSC palette) into out (210 * 160 * 3 bytes),
// for videos: allocates (getScreenRGB's buffer), never on a training path. 0, or -1 if ALE threw.
int ne__ale_rgb(const ne_ale* ale, uint8_t* out);

// ALE's grayscale palette: lut[i] is the luminance byte ne__ale_gray writes for palette index i.
void ne__ale_gray_lut(ne_ale* ale, uint8_t lut[256]);

// The game's minimal action set (full-set actions) into out (max entries); returns the count.
int ne__ale_minimal_actions(const ne_ale* ale, int* out, int max);

// Frames emulated since the emulator was created.
long ne__ale_frame_number(const ne_ale* ale);

#define NE_ALE_RAM 128  // bytes of the console's RAM

// The console's RAM (NE_ALE_RAM bytes) into out.
void ne__ale_ram(const ne_ale* ale, uint8_t* out);

#ifdef __cplusplus
}
#endif
#endif
