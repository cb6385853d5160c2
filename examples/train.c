// SPDX-License-Identifier: MIT
// The C API end to end: a Deep GA config written inline, overridden from the command line like the
// CLI's key=value arguments, trained into a run directory (Ctrl-C stops at a checkpoint; running
// the program again with the same directory resumes it), then the best agent replayed from its
// file over 20 fresh episodes. Built with the library (build/examples/train); ctest runs it.
//   build/examples/train OUT_DIR [section.key=value ...]      e.g. ga.population=300 env.id=Acrobot-v1
#include <neuroevo/neuroevo.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

static const char CONFIG[] =
    "[run]\n"
    "algorithm = ga\n"
    "seed = 1\n"
    "generations = 20\n"
    "target = auto\n"  // CartPole-v1's reward threshold, 475
    "[env]\n"
    "id = CartPole-v1\n"
    "[policy]\n"
    "hidden = 32,32\n"
    "[ga]\n"
    "population = 200\n"
    "truncation = 20\n"
    "sigma = 0.05\n";

static volatile int stop;  // raised by Ctrl-C: the run checkpoints and ne_run_loop returns NE_EINTR
static void on_sigint(int sig) { (void)sig, stop = 1; }

// A completed generation: the run's own progress line is printed already; a hook may add to it
// or end the run (a non-zero return).
static int on_generation(void* user, const ne_run* run) {
  (void)user;
  return ne_run_generation(run) >= 100;  // a hard cap whatever the config says
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUT_DIR [section.key=value ...]\n", argv[0]);
    return 2;
  }
  const char* out = argv[1];
  char err[NE_ERRSTR_LEN];
  signal(SIGINT, on_sigint);
  ne_run_options opt = {.stop = &stop, .on_generation = on_generation};
  ne_run* run = NULL;
  struct stat st;
  int rc;
  if (stat(out, &st) == 0) {  // an earlier run: continue it (overrides are fixed in its config.ini)
    rc = ne_run_resume(out, &opt, &run, err);
  } else {
    ne_config* cfg = ne_config_create();
    rc = cfg ? ne_config_load_string(cfg, CONFIG, "train.c", err) : NE_ENOMEM;
    for (int i = 2; rc == 0 && i < argc; i++) rc = ne_config_override(cfg, argv[i], "command line", err);
    opt.out_dir = out;
    if (rc == 0) rc = ne_run_create(cfg, &opt, &run, err);  // validates: a bad key or value is named
    ne_config_destroy(cfg);
  }
  if (rc == 0) rc = ne_run_loop(run, err);
  if (rc != 0 && rc != NE_EINTR) fprintf(stderr, "train: %s (%s)\n", err, ne_strerror(rc));
  if (rc != 0) {
    ne_run_destroy(run);
    return rc == NE_EINTR ? 130 : 1;
  }
  // the best agent as its file holds it: the file alone reproduces it
  char path[4096];
  if (ne_agent_path(ne_run_dir(run), path, sizeof path) != 0) {
    fprintf(stderr, "train: no agent file in %s\n", ne_run_dir(run));
    ne_run_destroy(run);
    return 1;
  }
  ne_agent_eval ev;
  rc = ne_agent_evaluate(path, 20, 12345, 0, &ev, NULL, err);
  if (rc == 0)
    printf("%s: %s scores %.2f +- %.2f over %d episodes (%llu steps)\n", ev.env_id, path, ev.mean, ev.std, ev.episodes,
           (unsigned long long)ev.steps);
  else fprintf(stderr, "train: %s\n", err);
  ne_run_destroy(run);
  return rc == 0 ? 0 : 1;
}
