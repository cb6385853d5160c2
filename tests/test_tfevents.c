// SPDX-License-Identifier: MIT
// TensorBoard event files (tfevents.h): CRC-32C and TFRecord masking against known values, the bytes
// of an event against what TensorBoard's own protobuf classes serialize (dumped from Python), and the
// resume rule (later steps and torn tails dropped, the same file continued).
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc32c.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/tfevents.h"
#include "test.h"

// Event{wall_time=1.5, step=3, summary{value{tag="return/best" simple_value=2} value{tag="x"
// simple_value=-0.25}}} framed as a TFRecord, as tensorboard.compat.proto + masked_crc32c write it.
static const uint8_t REFERENCE_RECORD[59] = {0x2b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x86, 0x1b, 0xc3, 0x4b,
                                             0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, 0x10, 0x03, 0x2a,
                                             0x1e, 0x0a, 0x12, 0x0a, 0x0b, 0x72, 0x65, 0x74, 0x75, 0x72, 0x6e, 0x2f,
                                             0x62, 0x65, 0x73, 0x74, 0x15, 0x00, 0x00, 0x00, 0x40, 0x0a, 0x08, 0x0a,
                                             0x01, 0x78, 0x15, 0x00, 0x00, 0x80, 0xbe, 0x31, 0x09, 0x01, 0x0b};

// a fresh scratch directory (removed by remove_dir)
static void make_dir(char* dir, size_t size) {
  snprintf(dir, size, "/tmp/ne_tfevents_XXXXXX");
  ASSERT(mkdtemp(dir) != NULL);
}

static void remove_dir(const char* dir) {
  DIR* d = opendir(dir);
  ASSERT(d != NULL);
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

// number of files in dir
static int count_files(const char* dir) {
  DIR* d = opendir(dir);
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

// Reads the steps of the summary records of a file into steps (at most cap); returns how many.
// Relies on the encoder's field order: wall_time (9 bytes), then step as a one-byte varint.
static int read_steps(const char* path, int* steps, int cap, int* file_versions) {
  char* data;
  size_t len;
  ASSERT_EQ(ne__read_file(path, &data, &len, NULL), 0);
  int n = 0;
  *file_versions = 0;
  for (size_t pos = 0; pos + 16 <= len;) {
    uint32_t payload_len = (uint32_t)(uint8_t)data[pos] | (uint32_t)(uint8_t)data[pos + 1] << 8;
    const uint8_t* p = (const uint8_t*)data + pos + 12;
    ASSERT_EQ(p[0], 0x09);
    ASSERT_EQ(p[9], 0x10);
    if (p[11] == 0x1a) (*file_versions)++;
    else if (n < cap) steps[n++] = p[10];
    pos += payload_len + 16;
  }
  ne_free(data);
  return n;
}

static void test_crc32c_and_mask_known_values(void) {
  ASSERT_U64_EQ(ne__crc32c(0, "123456789", 9), 0xE3069283u);  // the CRC-32C check value
  ASSERT_U64_EQ(ne_tfevents_masked_crc("123456789", 9), 0xc78ab0e5u);
  ASSERT_U64_EQ(ne_tfevents_masked_crc("", 0), 0xa282ead8u);  // crc 0 masks to the constant
}

static void test_frame_matches_tensorboard(void) {
  uint8_t out[sizeof REFERENCE_RECORD];
  size_t n = ne_tfevents_frame(REFERENCE_RECORD + 12, sizeof REFERENCE_RECORD - 16, out);
  ASSERT_EQ(n, sizeof REFERENCE_RECORD);
  ASSERT(memcmp(out, REFERENCE_RECORD, n) == 0);
}

static void test_event_bytes_match_tensorboard(void) {
  char dir[64], err[NE_ERRSTR_LEN];
  make_dir(dir, sizeof dir);
  ne_tfevents* w;
  ASSERT_EQ(ne_tfevents_open(dir, 0, &w, err), 0);
  // NaN values are left out, so this event is the reference one
  ne_tf_scalar v[3] = {{"return/best", 2.0}, {"return/elite", NAN}, {"x", -0.25}};
  ASSERT_EQ(ne_tfevents_write(w, 3, 1.5, v, 3, err), 0);
  char* data;
  size_t len;
  ASSERT_EQ(ne__read_file(ne_tfevents_path(w), &data, &len, err), 0);
  ASSERT_CONTAINS(ne_tfevents_path(w), "/events.out.tfevents.");
  // first record: file_version "brain.Event:2"; second: the reference bytes
  size_t first = (size_t)(uint8_t)data[0] + 16;
  ASSERT_EQ(first, 12 + 9 + 2 + 2 + strlen("brain.Event:2") + 4);
  ASSERT(memcmp(data + first - 4 - 13, "brain.Event:2", 13) == 0);
  ASSERT_EQ(len, first + sizeof REFERENCE_RECORD);
  ASSERT(memcmp(data + first, REFERENCE_RECORD, sizeof REFERENCE_RECORD) == 0);
  ne_free(data);
  ne_tfevents_close(w);
  remove_dir(dir);
}

// Writes steps [from, to) with value = step.
static void write_steps(ne_tfevents* w, int from, int to) {
  char err[NE_ERRSTR_LEN];
  for (int s = from; s < to; s++) {
    ne_tf_scalar v = {"return/best", s};
    ASSERT_EQ(ne_tfevents_write(w, s, 100.0 + s, &v, 1, err), 0);
  }
}

static void test_resume_drops_later_steps_and_continues_the_file(void) {
  char dir[64], err[NE_ERRSTR_LEN], path[4096];
  make_dir(dir, sizeof dir);
  ne_tfevents* w;
  ASSERT_EQ(ne_tfevents_open(dir, 0, &w, err), 0);
  write_steps(w, 0, 6);
  snprintf(path, sizeof path, "%s", ne_tfevents_path(w));
  ne_tfevents_close(w);
  // a torn record at the end, as a crash mid-write leaves it
  FILE* f = fopen(path, "ab");
  fwrite(REFERENCE_RECORD, 1, 20, f);
  fclose(f);
  // resume at generation 3: steps 3..5 and the torn tail go, the same file goes on
  ASSERT_EQ(ne_tfevents_open(dir, 3, &w, err), 0);
  ASSERT_STR_EQ(ne_tfevents_path(w), path);
  write_steps(w, 3, 5);
  ne_tfevents_close(w);
  int steps[16], versions;
  int n = read_steps(path, steps, 16, &versions);
  ASSERT_EQ(versions, 1);
  ASSERT_EQ(n, 5);
  for (int i = 0; i < n; i++) ASSERT_EQ(steps[i], i);
  ASSERT_EQ(count_files(dir), 1);
  remove_dir(dir);
}

static void test_truncate_stops_at_corruption(void) {
  uint8_t data[2 * sizeof REFERENCE_RECORD];
  memcpy(data, REFERENCE_RECORD, sizeof REFERENCE_RECORD);
  memcpy(data + sizeof REFERENCE_RECORD, REFERENCE_RECORD, sizeof REFERENCE_RECORD);
  // step 3 is kept for first_step 4 and dropped for first_step 3
  ASSERT_EQ(ne_tfevents_truncate(data, sizeof data, 4), sizeof data);
  ASSERT_EQ(ne_tfevents_truncate(data, sizeof data, 3), 0);
  // a flipped payload bit fails the data CRC: that record and everything after it go
  memcpy(data, REFERENCE_RECORD, sizeof REFERENCE_RECORD);
  memcpy(data + sizeof REFERENCE_RECORD, REFERENCE_RECORD, sizeof REFERENCE_RECORD);
  data[sizeof REFERENCE_RECORD + 30] ^= 1;
  ASSERT_EQ(ne_tfevents_truncate(data, sizeof data, 100), sizeof REFERENCE_RECORD);
}

static void test_open_fails_cleanly_on_missing_dir(void) {
  char err[NE_ERRSTR_LEN];
  ne_tfevents* w = (ne_tfevents*)1;
  ASSERT_EQ(ne_tfevents_open("/nonexistent/neuroevo-dir", 0, &w, err), NE_EIO);
  ASSERT(w == NULL);
  ASSERT_CONTAINS(err, "/nonexistent/neuroevo-dir");
  ne_tfevents_close(NULL);
}

TEST_MAIN(TEST_ENTRY(test_crc32c_and_mask_known_values), TEST_ENTRY(test_frame_matches_tensorboard),
          TEST_ENTRY(test_event_bytes_match_tensorboard),
          TEST_ENTRY(test_resume_drops_later_steps_and_continues_the_file),
          TEST_ENTRY(test_truncate_stops_at_corruption), TEST_ENTRY(test_open_fails_cleanly_on_missing_dir))
