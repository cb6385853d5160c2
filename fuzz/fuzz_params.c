// SPDX-License-Identifier: MIT
// Fuzz target: the best.params parser (ne__params_file_parse, what `neuroevo eval` reads for ES
// runs). An accepted file must have parameters, and obs_mean/obs_std of one shared length.
#include "fuzz.h"
#include "neuroevo/error.h"
#include "run/params_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = fuzz_cstr(data, size);
  char err[NE_ERRSTR_LEN];
  static ne_params_file f;  // holds a genome header (~10 KB): off the stack
  if (ne__params_file_parse(text, "fuzz.params", &f, err) == 0) {
    FUZZ_CHECK(f.params != NULL, "accepted without params");
    FUZZ_CHECK(!f.obs_mean == !f.obs_std, "obs_mean without obs_std");
    FUZZ_CHECK(f.obs_dim >= 0, "obs_dim %d", f.obs_dim);
    ne__params_file_free(&f);
  }
  ne_free(text);
  return 0;
}
