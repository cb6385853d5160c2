// SPDX-License-Identifier: MIT
// Checkpoints: round trip, only the newest K kept, and corrupt or truncated files are named in the
// error and skipped in favour of the previous checkpoint. The partial-generation log: results come
// back bit for bit (observation sums and behaviours too) for the same batch only, a torn tail is cut
// off, a log of another checkpoint or another batch is not used.
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc32c.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/error.h"
#include "run/partial.h"
#include "test.h"

static char dir[256];

// Names this process's checkpoint folder (the writer makes it) and removes what it holds
static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/ne_test_ckpt_%d", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
}

// At a test's end: nothing left in /tmp
static void remove_dir(void) {
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
  remove_dir();
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
  remove_dir();
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
  remove_dir();
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

// ---- the partial-generation log (run/partial.h) ----
enum { OBS = 3, BC = 2 };

static ne_result result_for(int i, double* sums, float* bc) {
  ne_result r = {.fitness = -1.5 + i,
                 .return_std = 0.25 * i,
                 .episodes = 3,
                 .steps = 100u + (uint64_t)i,
                 .obs_count = 7.0,
                 .obs_sum = sums,
                 .obs_sumsq = sums + OBS,
                 .bc = bc,
                 .pre_fitness = NAN};
  for (int k = 0; k < 2 * OBS; k++) sums[k] = i * 10.0 + k + 0.1;
  for (int k = 0; k < BC; k++) bc[k] = (float)i - 0.5f * (float)k;
  return r;
}

static ne__partial* open_log(uint32_t base) {
  ne__partial* log = NULL;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__partial_open(dir, base, OBS, BC, &log, err), 0);
  return log;
}

static void partial_log_round_trip(void) {
  make_dir();
  ne_batch round0 = {.generation = 4, .round = 0, .n = 10, .want_obs_stats = 1, .want_bc = 1};
  ne_batch round1 = {.generation = 4, .round = 1, .n = 3};
  double sums[10][2 * OBS], got_sums[10][2 * OBS];
  float bcs[10][BC], got_bc[10][BC];
  ne_result res[10], got[10];
  uint8_t have[10];
  for (int i = 0; i < 10; i++) {
    res[i] = result_for(i, sums[i], bcs[i]);
    got[i] = (ne_result){.obs_sum = got_sums[i], .obs_sumsq = got_sums[i] + OBS, .bc = got_bc[i]};
  }
  ne__partial* log = open_log(4);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 0);
  ne__partial_add(log, 0, 2, &res[2]);
  ne__partial_add(log, 0, 7, &res[7]);
  ne__partial_close(log);
  // the same batch gets its two results back, bit for bit
  log = open_log(4);
  ASSERT_EQ(ne__partial_count(log), 2);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 2);
  ASSERT(have[2] && have[7] && !have[0] && !have[9]);
  ASSERT_EQ(memcmp(&got[7].fitness, &res[7].fitness, sizeof(double)), 0);
  ASSERT_EQ(got[7].steps, res[7].steps);
  ASSERT(isnan(got[7].pre_fitness));
  ASSERT_EQ(memcmp(got_sums[7], sums[7], sizeof sums[7]), 0);
  ASSERT_EQ(memcmp(got_bc[2], bcs[2], sizeof bcs[2]), 0);
  for (int i = 0; i < 10; i++)
    if (!have[i]) ne__partial_add(log, 0, (uint32_t)i, &res[i]);
  ASSERT_EQ(ne__partial_round(log, &round1, round1.round, 12, got, have), 0);  // round 1 begins
  ne__partial_add(log, 1, 1, &res[1]);
  ne__partial_close(log);
  // a torn record at the end (a lost machine mid-write) is cut off; what precedes it stays
  char path[512];
  snprintf(path, sizeof path, "%s/partial.log", dir);
  FILE* f = fopen(path, "ab");
  ASSERT(f != NULL);
  fwrite("\x40\0\0\0garbage", 1, 11, f);
  fclose(f);
  log = open_log(4);
  ASSERT_EQ(ne__partial_count(log), 11);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 10);
  ASSERT_EQ(ne__partial_round(log, &round1, round1.round, 12, got, have), 1);
  ASSERT(have[1] && !have[0]);
  ne__partial_close(log);
  // another batch under round 1 (digest 13): round 1 goes, round 0 stays
  log = open_log(4);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 10);
  ASSERT_EQ(ne__partial_round(log, &round1, round1.round, 13, got, have), 0);
  ASSERT_EQ(ne__partial_count(log), 10);
  ne__partial_close(log);
  log = open_log(4);
  ASSERT_EQ(ne__partial_count(log), 10);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 99, got, have), 0);  // another round-0 batch: all go
  ne__partial_close(log);
  log = open_log(4);
  ASSERT_EQ(ne__partial_count(log), 0);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 99, got, have), 0);
  ne__partial_add(log, 0, 3, &res[3]);
  ASSERT_EQ(ne__partial_restart(log, 5, NULL), 0);  // checkpoint 5 is on disk: the log starts over
  ne__partial_close(log);
  log = open_log(5);
  ASSERT_EQ(ne__partial_count(log), 0);
  ne__partial_close(log);
  // a log of checkpoint 5 is not one of checkpoint 4
  log = open_log(5);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 0);
  ne__partial_add(log, 0, 0, &res[0]);
  ne__partial_close(log);
  log = open_log(4);
  ASSERT_EQ(ne__partial_count(log), 0);
  ne__partial_close(log);
  // each generation restarts the log; one that is its header alone is left as it is (short
  // generations end before their results reach the file), one of another checkpoint is rewritten
  log = open_log(6);
  struct stat before, after;
  ASSERT_EQ(stat(path, &before), 0);
  usleep(20000);  // past the file system's timestamp granularity: a rewrite would change st_mtim
  ASSERT_EQ(ne__partial_restart(log, 6, NULL), 0);
  ASSERT_EQ(stat(path, &after), 0);
  ASSERT(after.st_size == 16 && before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
         before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 0);
  ne__partial_add(log, 0, 2, &res[2]);
  ASSERT_EQ(ne__partial_sync(log, NULL), 0);
  ASSERT_EQ(ne__partial_restart(log, 6, NULL), 0);  // records past the header: emptied
  ASSERT_EQ(stat(path, &after), 0);
  ASSERT(after.st_size == 16);
  ASSERT_EQ(ne__partial_restart(log, 7, NULL), 0);
  ne__partial_close(log);
  log = open_log(7);
  ASSERT_EQ(ne__partial_round(log, &round0, round0.round, 11, got, have), 0);
  ne__partial_add(log, 0, 2, &res[2]);
  ne__partial_close(log);
  log = open_log(7);
  ASSERT_EQ(ne__partial_count(log), 1);
  ne__partial_close(log);
  // two rounds evaluated at once (a generation's last round and the next generation's candidates
  // asked ahead, with other per-result arrays): interleaved results go back to their own round
  ne_batch ahead = {.generation = 8, .round = 0, .n = 10, .want_bc = 1};
  log = open_log(7);
  ne__partial_begin(log);
  ASSERT_EQ(ne__partial_round(log, &round1, round1.round, 12, got, have), 0);
  ASSERT_EQ(ne__partial_round(log, &ahead, NE__PARTIAL_AHEAD, 21, got, have), 0);
  ne__partial_add(log, 1, 0, &res[0]);
  ne__partial_add(log, NE__PARTIAL_AHEAD, 4, &res[4]);
  ne__partial_add(log, 1, 2, &res[2]);
  ne__partial_add(log, NE__PARTIAL_AHEAD, 9, &res[9]);
  ne__partial_add(log, 5, 1, &res[1]);  // a round not open: not kept
  ne__partial_close(log);
  log = open_log(7);
  ASSERT_EQ(ne__partial_count(log), 5);  // with round 0's one above
  ASSERT_EQ(ne__partial_round(log, &round1, round1.round, 12, got, have), 2);
  ASSERT(have[0] && have[2] && !have[1]);
  ASSERT_EQ(memcmp(&got[2].fitness, &res[2].fitness, sizeof(double)), 0);
  memset(got_bc, 0, sizeof got_bc);
  ASSERT_EQ(ne__partial_round(log, &ahead, NE__PARTIAL_AHEAD, 21, got, have), 2);
  ASSERT(have[4] && have[9] && !have[0] && !have[2]);
  ASSERT_EQ(memcmp(got_bc[9], bcs[9], sizeof bcs[9]), 0);
  ASSERT_EQ(got[4].steps, res[4].steps);
  ne__partial_close(log);
  remove_dir();
}

TEST_MAIN(TEST_ENTRY(round_trip_and_keep_last_k), TEST_ENTRY(corrupt_newest_falls_back),
          TEST_ENTRY(truncated_file_is_named), TEST_ENTRY(reader_never_reads_past_end), TEST_ENTRY(crc32c_paths_agree),
          TEST_ENTRY(partial_log_round_trip))
