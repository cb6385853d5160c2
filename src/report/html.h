// SPDX-License-Identifier: MIT
// Text building for the pages neuroevo serves or writes (dashboard, run report): formatted appends,
// HTML and JSON escaping, base64 for embedded images, all into an ne_buf. Internal; not public API.
#ifndef NEUROEVO_HTML_H
#define NEUROEVO_HTML_H

#include <stddef.h>

#include "core/buf.h"

// Appends printf-style text to b (b->oom is set on allocation failure, as for every ne_buf write).
void ne__html_printf(ne_buf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Appends a NUL-terminated string.
void ne__html_puts(ne_buf* b, const char* s);

// Appends s with & < > " ' escaped, safe inside element text and quoted attributes.
void ne__html_text(ne_buf* b, const char* s);

// Appends s as a JSON string literal, quotes included (control characters as \uXXXX).
void ne__html_json_str(ne_buf* b, const char* s);

// Appends the base64 encoding (RFC 4648, padded) of n bytes.
void ne__html_base64(ne_buf* b, const void* data, size_t n);

// Appends a NUL byte without counting it in b->len, so b->data can be used as a C string.
void ne__html_terminate(ne_buf* b);

#endif
