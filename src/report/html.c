// SPDX-License-Identifier: MIT
// Text building for generated pages (see html.h). Everything goes through ne_buf, so an allocation
// failure anywhere shows up once, as b->oom, where the page is finished.
#include "report/html.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "neuroevo/alloc.h"

void ne__html_printf(ne_buf* b, const char* fmt, ...) {
  char small[512];
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(again);
    return;
  }
  if ((size_t)n < sizeof small) {
    ne__buf_bytes(b, small, (size_t)n);
  } else {
    // long output (rare): format into a heap buffer of the exact size
    char* big = ne_malloc((size_t)n + 1);
    if (big) {
      vsnprintf(big, (size_t)n + 1, fmt, again);
      ne__buf_bytes(b, big, (size_t)n);
      ne_free(big);
    } else {
      b->oom = 1;
    }
  }
  va_end(again);
}

void ne__html_puts(ne_buf* b, const char* s) { ne__buf_bytes(b, s, strlen(s)); }

void ne__html_text(ne_buf* b, const char* s) {
  for (const char* run = s;; s++) {
    const char* esc = NULL;
    switch (*s) {
      case '&': esc = "&amp;"; break;
      case '<': esc = "&lt;"; break;
      case '>': esc = "&gt;"; break;
      case '"': esc = "&quot;"; break;
      case '\'': esc = "&#39;"; break;
      default: break;
    }
    // flush the plain run before an escape or at the end
    if (esc || !*s) ne__buf_bytes(b, run, (size_t)(s - run));
    if (!*s) return;
    if (esc) {
      ne__html_puts(b, esc);
      run = s + 1;
    }
  }
}

void ne__html_json_str(ne_buf* b, const char* s) {
  ne__buf_bytes(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      ne__buf_bytes(b, esc, 2);
    } else if (c == '\n') {
      ne__html_puts(b, "\\n");
    } else if (c < 0x20) {
      ne__html_printf(b, "\\u%04x", c);
    } else {
      ne__buf_bytes(b, s, 1);
    }
  }
  ne__buf_bytes(b, "\"", 1);
}

void ne__html_base64(ne_buf* b, const void* data, size_t n) {
  static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char* p = data;
  char quad[4];
  for (size_t i = 0; i < n; i += 3) {
    // 3 bytes -> 4 characters; a short last group is padded with '='
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    quad[0] = ALPHABET[(v >> 18) & 63];
    quad[1] = ALPHABET[(v >> 12) & 63];
    quad[2] = i + 1 < n ? ALPHABET[(v >> 6) & 63] : '=';
    quad[3] = i + 2 < n ? ALPHABET[v & 63] : '=';
    ne__buf_bytes(b, quad, 4);
  }
}

void ne__html_terminate(ne_buf* b) {
  ne__buf_bytes(b, "", 1);
  if (!b->oom) b->len--;
}
