// SPDX-License-Identifier: MIT
// Fuzz target: the INI config loader and `section.key=value` overrides. Input: INI text, then
// NUL-separated overrides. Besides memory safety it checks the property resume depends on: the
// resolved config (ne_config_format) reads back without error and formats to the same text.
#include "fuzz.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = fuzz_cstr(data, size);
  char* pieces[64];
  int n = fuzz_split(text, size, pieces, 64);
  char err[NE_ERRSTR_LEN];
  ne_config* cfg = ne_config_create();
  if (!cfg) abort();
  // the file, then each override; errors are expected, crashes are not
  ne_config_load_string(cfg, pieces[0], "fuzz.ini", err);
  for (int i = 1; i < n; i++) ne_config_override(cfg, pieces[i], "fuzz", err);
  ne_config_validate(cfg, err);
  // round trip: config.ini of a run must reproduce its config exactly
  char* resolved = ne_config_format(cfg);
  if (!resolved) abort();
  ne_config* back = ne_config_create();
  if (!back) abort();
  int rc = ne_config_load_string(back, resolved, "config.ini", err);
  FUZZ_CHECK(rc == 0, "resolved config does not read back: %s\n%s", err, resolved);
  char* again = ne_config_format(back);
  if (!again) abort();
  FUZZ_CHECK(strcmp(resolved, again) == 0, "resolved config changes on reload:\n%s\n---\n%s", resolved, again);
  ne_free(again);
  ne_config_destroy(back);
  ne_free(resolved);
  ne_config_destroy(cfg);
  ne_free(text);
  return 0;
}
