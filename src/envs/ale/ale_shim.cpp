// SPDX-License-Identifier: MIT
// The extern "C" shim over ale::ALEInterface (ale_shim.h). Exceptions stop here: every entry point
// that can throw catches and reports through errstr. No allocation after ne__ale_create except
// inside ALE's own reset.
#include "envs/ale/ale_shim.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "ale/ale_interface.hpp"  // from the ale-py source distribution (scripts/build-ale)

struct ne_ale {
  ale::ALEInterface ale;            // the emulator
  ale::ActionVect minimal;          // its minimal action set
  std::vector<unsigned char> gray;  // (210 * 160) luminance of the last screen read
  ale::ALEState initial;            // the console right after loadROM, random generator included
};

extern "C" ne_ale* ne__ale_create(const char* rom_path, char* errstr, size_t errstr_size) {
  // ALE prints a banner and settings on every load unless told to keep to errors
  ale::Logger::setMode(ale::Logger::Error);
  ne_ale* a = nullptr;
  try {
    a = new ne_ale();
    a->ale.setFloat("repeat_action_probability", 0.0f);  // sticky actions are the family's
    a->ale.setInt("frame_skip", 1);                      // and so is the frame skip
    a->ale.setInt("max_num_frames_per_episode", 0);      // and the episode cap (a TimeLimit)
    a->ale.setInt("random_seed", 0);                     // unused with the above: runs are deterministic
    a->ale.loadROM(rom_path);
    a->minimal = a->ale.getMinimalActionSet();
    // reset_game draws from the console's random generator (the RIOT timer, some carts' RAM), so
    // every reset starts from this snapshot: an episode then depends on the family's seed alone
    a->initial = a->ale.cloneState();
    return a;
  } catch (const std::exception& e) {
    if (errstr) std::snprintf(errstr, errstr_size, "ALE could not load %s: %s", rom_path, e.what());
  } catch (...) {
    if (errstr) std::snprintf(errstr, errstr_size, "ALE could not load %s", rom_path);
  }
  delete a;
  return nullptr;
}

extern "C" void ne__ale_destroy(ne_ale* a) { delete a; }

extern "C" void ne__ale_reset(ne_ale* a) {
  a->ale.restoreState(a->initial);
  a->ale.reset_game();
}

extern "C" int ne__ale_act(ne_ale* a, int action) { return a->ale.act(static_cast<ale::Action>(action)); }

extern "C" int ne__ale_game_over(const ne_ale* a) { return a->ale.game_over(false) ? 1 : 0; }

extern "C" void ne__ale_gray(ne_ale* a, uint8_t* out) {
  // ALE's palette lookup into the instance's buffer (sized once, so no allocation here), then out
  a->gray.resize(NE_ALE_H * NE_ALE_W);
  a->ale.getScreenGrayscale(a->gray);
  std::memcpy(out, a->gray.data(), a->gray.size());
}

extern "C" const uint8_t* ne__ale_screen(const ne_ale* a) { return a->ale.getScreen().getArray(); }

extern "C" int ne__ale_rgb(const ne_ale* a, uint8_t* out) {
  try {
    std::vector<unsigned char> rgb(NE_ALE_H * NE_ALE_W * 3);
    a->ale.getScreenRGB(rgb);
    std::memcpy(out, rgb.data(), rgb.size());
    return 0;
  } catch (...) {
    return -1;
  }
}

extern "C" void ne__ale_gray_lut(ne_ale* a, uint8_t lut[256]) {
  uint8_t index[256];
  for (int i = 0; i < 256; i++) index[i] = static_cast<uint8_t>(i);
  a->ale.theOSystem->colourPalette().applyPaletteGrayscale(lut, index, 256);
}

extern "C" int ne__ale_minimal_actions(const ne_ale* a, int* out, int max) {
  int n = 0;
  for (ale::Action act : a->minimal)
    if (n < max) out[n++] = static_cast<int>(act);
  return n;
}

extern "C" long ne__ale_frame_number(const ne_ale* a) { return a->ale.getFrameNumber(); }

extern "C" void ne__ale_ram(const ne_ale* a, uint8_t* out) {
  const ale::ALERAM& ram = a->ale.getRAM();
  std::memcpy(out, ram.array(), NE_ALE_RAM);
}
