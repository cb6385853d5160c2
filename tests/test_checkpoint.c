// SPDX-License-Identifier: MIT
// Checkpoints: round trip, only the newest K kept, and corrupt or truncated files are named in the
// error and skipped in favour of the previous checkpoint.
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc32c.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/error.h"
#include "test.h"

static char dir[256];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/ne_test_ckpt_%d", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
}

static void write_gen(uint32_t gen, int keep) {
  uint8_t state[100];
  for (int i = 0; i < 100; i++) state[i] = (uint8_t)(gen * 7 + (uint32_t)i);
  ne_checkpoint ck = {gen, gen * 10ull, gen * 1000ull, gen * 0.5, state, sizeof state};
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_checkpoint_write(dir, &ck, keep, err), 0);
}

static void round_trip_and_keep_last_k(void) {
  make_dir();
  for (uint32_t g = 1; g <= 5; g++) write_gen(g, 3);
  char path[512], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/ckpt-00000002.bin", dir);
  ASSERT_NE(access(path, F_OK), 0);  // deleted: only 3, 4, 5 remain
  ne_checkpoint ck;
  ASSERT_EQ(ne_checkpoint_read_latest(dir, &ck, err, NULL), 0);
  ASSERT_EQ(ck.generation, 5);
  ASSERT_U64_EQ(ck.evaluations, 50);
  ASSERT_U64_EQ(ck.env_steps, 5000);
  ASSERT_NEAR(ck.wall_s, 2.5, 0);
  ASSERT_EQ(ck.algo_len, 100);
  ASSERT_EQ(ck.algo[99], (uint8_t)(5 * 7 + 99));
  ne_checkpoint_free(&ck);
}

static int warnings;
static char last_warning[NE_ERRSTR_LEN];
static void count_warning(const char* msg) {
  warnings++;
  snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static void corrupt_newest_falls_back(void) {
  make_dir();
  for (uint32_t g = 1; g <= 3; g++) write_gen(g, 3);
  char path[512], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/ckpt-00000003.bin", dir);
  // flip one payload byte of the newest
  FILE* f = fopen(path, "r+b");
  ASSERT(f);
  fseek(f, 40, SEEK_SET);
  fputc(0xFF ^ 0x12, f);
  fclose(f);
  ne_checkpoint ck;
  ASSERT_EQ(ne_checkpoint_read(path, &ck, err), NE_ECORRUPT);
  ASSERT_CONTAINS(err, "ckpt-00000003.bin");
  ASSERT_CONTAINS(err, "checksum");
  warnings = 0;
  ASSERT_EQ(ne_checkpoint_read_latest(dir, &ck, err, count_warning), 0);
  ASSERT_EQ(ck.generation, 2);
  ASSERT_EQ(warnings, 1);
  ASSERT_CONTAINS(last_warning, "checksum");
  ne_checkpoint_free(&ck);
}

static void truncated_file_is_named(void) {
  make_dir();
  write_gen(1, 3);
  write_gen(2, 3);
  char path[512], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/ckpt-00000002.bin", dir);
  ASSERT_EQ(truncate(path, 50), 0);
  ne_checkpoint ck;
  ASSERT_EQ(ne_checkpoint_read(path, &ck, err), NE_ECORRUPT);
  ASSERT_CONTAINS(err, "truncated");
  ASSERT_EQ(ne_checkpoint_read_latest(dir, &ck, err, NULL), 0);
  ASSERT_EQ(ck.generation, 1);
  ne_checkpoint_free(&ck);
  // nothing readable at all
  snprintf(path, sizeof path, "%s/ckpt-00000001.bin", dir);
  ASSERT_EQ(truncate(path, 3), 0);
  ASSERT_EQ(ne_checkpoint_read_latest(dir, &ck, err, NULL), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, "no readable checkpoint");
}

static void reader_never_reads_past_end(void) {
  uint8_t bytes[5] = {1, 2, 3, 4, 5};
  ne_reader r;
  ne__reader_init(&r, bytes, sizeof bytes);
  ASSERT_EQ(ne__reader_u32(&r), 0x04030201u);
  ASSERT_EQ(ne__reader_u32(&r), 0);
  ASSERT_EQ(r.bad, 1);
  ASSERT_EQ(ne__reader_left(&r), 0);
  // CRC-32C check value of "123456789"
  ASSERT_EQ(ne__crc32c(0, "123456789", 9), 0xE3069283u);
}

// The crc32 instruction path (8 bytes a step, unaligned loads, a byte tail) against the table, at
// every length and start offset around the word size, and continued in two pieces.
static void crc32c_paths_agree(void) {
  uint8_t bytes[300];
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)(i * 131u + 7u);
  ASSERT_EQ(ne__crc32c_portable(0, "123456789", 9), 0xE3069283u);
  for (size_t off = 0; off < 9; off++)
    for (size_t n = 0; n + off <= sizeof bytes; n += n < 40 ? 1 : 37) {
      uint32_t want = ne__crc32c_portable(0, bytes + off, n);
      ASSERT_EQ(ne__crc32c(0, bytes + off, n), want);
      ASSERT_EQ(ne__crc32c(ne__crc32c(0, bytes + off, n / 3), bytes + off + n / 3, n - n / 3), want);
    }
}

TEST_MAIN(TEST_ENTRY(round_trip_and_keep_last_k), TEST_ENTRY(corrupt_newest_falls_back),
          TEST_ENTRY(truncated_file_is_named), TEST_ENTRY(reader_never_reads_past_end), TEST_ENTRY(crc32c_paths_agree))
