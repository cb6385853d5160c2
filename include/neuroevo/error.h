// SPDX-License-Identifier: MIT
// Error codes shared by every module. Functions return 0 or a negative NE_E* code; objects that can
// fail also keep an `err` code and an `errstr` message naming the file/line/key/value involved.
#ifndef NEUROEVO_ERROR_H
#define NEUROEVO_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Result codes (0 is success).
enum {
  NE_OK = 0,
  NE_EINVAL = -1,         // bad argument or value
  NE_ENOMEM = -2,         // allocation failed
  NE_EIO = -3,            // file or socket I/O failed
  NE_EPARSE = -4,         // malformed text (config, genome, trace arguments)
  NE_ENOTFOUND = -5,      // unknown id, key, file
  NE_ERANGE = -6,         // value outside its allowed range
  NE_ESTATE = -7,         // object in the wrong state (e.g. step before reset)
  NE_EVERSION = -8,       // data written by an incompatible version
  NE_ECORRUPT = -9,       // checksum or framing mismatch
  NE_EINTR = -10,         // interrupted by a stop request (Ctrl-C, SIGTERM)
  NE_ENET = -11,          // network / broker failure
  NE_EUNSUPPORTED = -12,  // a feature this env/policy combination cannot serve
  NE_EPHYSICS = -13,      // the physics engine stopped on a fatal error (MuJoCo's mju_error)
};

// Length of every `errstr` buffer in the library.
#define NE_ERRSTR_LEN 256

// Static text for an error code ("invalid argument", ...); never NULL, never freed.
const char* ne_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
