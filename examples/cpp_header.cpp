// SPDX-License-Identifier: MIT
// The public API from C++: the umbrella header compiles as C++ and its functions link (extern "C").
#include <neuroevo/neuroevo.h>

#include <cstdio>

int main() {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN];
  int rc = cfg ? ne_config_validate(cfg, err) : NE_ENOMEM;
  std::printf("neuroevo %s from C++: default config %s\n", NE_VERSION_STRING, rc == 0 ? "valid" : ne_strerror(rc));
  ne_config_destroy(cfg);
  return rc == 0 ? 0 : 1;
}
