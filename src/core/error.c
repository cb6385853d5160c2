// SPDX-License-Identifier: MIT
// Static text for the NE_E* result codes (uv_strerror style): never allocated, never overwritten.
#include "neuroevo/error.h"

const char* ne_strerror(int code) {
  switch (code) {
    case NE_OK: return "success";
    case NE_EINVAL: return "invalid argument";
    case NE_ENOMEM: return "out of memory";
    case NE_EIO: return "input/output error";
    case NE_EPARSE: return "parse error";
    case NE_ENOTFOUND: return "not found";
    case NE_ERANGE: return "value out of range";
    case NE_ESTATE: return "wrong state";
    case NE_EVERSION: return "incompatible version";
    case NE_ECORRUPT: return "corrupt data";
    case NE_EINTR: return "interrupted";
    case NE_ENET: return "network or broker failure";
    case NE_EUNSUPPORTED: return "unsupported";
    case NE_EPHYSICS: return "physics engine error";
    default: return "unknown error";
  }
}
