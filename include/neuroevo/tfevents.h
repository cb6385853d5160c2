// SPDX-License-Identifier: MIT
// TensorBoard event files written natively: TFRecord framing (length, masked CRC-32C of the length,
// data, masked CRC-32C of the data) around Event/Summary protobuf messages holding scalar values.
// Only what scalars need is encoded; no protobuf library, no TensorFlow. For watching runs; nothing
// here feeds back into training.
#ifndef NEUROEVO_TFEVENTS_H
#define NEUROEVO_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One scalar of an event: tag (e.g. "return/best") and its value (stored as a 32-bit float, as
// TensorBoard's simple_value is).
typedef struct ne_tf_scalar {
  const char* tag;  // not owned
  double value;     // NaN values are skipped by ne_tfevents_write
} ne_tf_scalar;

typedef struct ne_tfevents ne_tfevents;

// Opens the event file of dir for appending. If dir already holds events.out.tfevents.* files
// (a resumed run), every record of a step >= first_step is dropped from them (rewritten atomically;
// a torn or corrupt tail is dropped too) and the newest one is continued, so no step is ever
// written twice and readers see exactly the generations metrics.csv holds. Otherwise a new file
// events.out.tfevents.<unix time>.<host> starts with the file_version record. Caller frees with
// ne_tfevents_close. Errors: NE_EIO (path named), NE_ENOMEM. Nullable: errstr.
int ne_tfevents_open(const char* dir, int64_t first_step, ne_tfevents** out, char* errstr);

// Appends one Event (step, wall_time in Unix seconds, the n scalars as one Summary) with a single
// write(2), so a crash leaves at most one torn record at the end. No allocation once the scratch
// buffers have grown. Errors: NE_EIO, NE_ENOMEM. Nullable: errstr.
int ne_tfevents_write(ne_tfevents* w, int64_t step, double wall_time, const ne_tf_scalar* v, int n, char* errstr);

// The path of the file being written (owned by w).
const char* ne_tfevents_path(const ne_tfevents* w);

// Closes the file and frees w. Nullable: w.
void ne_tfevents_close(ne_tfevents* w);

// TFRecord's masked CRC-32C: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t ne_tfevents_masked_crc(const void* data, size_t n);

// Frames n bytes of data as one TFRecord into out (which must hold n + 16 bytes); returns n + 16.
size_t ne_tfevents_frame(const void* data, size_t n, uint8_t* out);

// Keeps the records of an event file's bytes whose step is < first_step (and those with no summary,
// such as file_version), in place; stops at the first torn or corrupt record. Returns the new length.
size_t ne_tfevents_truncate(uint8_t* data, size_t len, int64_t first_step);

#ifdef __cplusplus
}
#endif
#endif
