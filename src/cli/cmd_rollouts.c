// SPDX-License-Identifier: MIT
// `neuroevo rollouts ENV_ID --policy random|noop|scripted --episodes N --seed S`: runs episodes of
// a fixed policy and prints one CSV row per episode (episode,return,length). The batch side of
// statistical comparisons with reference implementations (tests/py_minatar_compare.py) and of env
// throughput checks; not for training (that is `run`). The format is a stable contract.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/env.h"
#include "neuroevo/episode.h"  // the episode as evaluations step it, with the actions chosen here
#include "neuroevo/error.h"
#include "neuroevo/rng.h"

#define CMD "neuroevo rollouts"

// what the command line asked for
typedef struct rollout_args {
  const char* env_id;   // positional ENV_ID
  const char* policy;   // random (default), noop, scripted
  long long episodes;   // --episodes (default 100)
  long long seed;       // --seed (default 0)
  long long max_steps;  // --max-steps (0: the env's own limit)
  double sticky;        // --sticky (0: the env's default; < 0 off)
  int no_ramping;       // --no-ramping
} rollout_args;

static void usage(FILE* out) {
  fprintf(out,
          "usage: " CMD
          " ENV_ID [--policy random|noop|scripted] [--episodes N] [--seed S]\n"
          "                         [--max-steps M] [--sticky P] [--no-ramping]\n\n"
          "Runs N episodes of a fixed policy on a discrete-action env and prints CSV:\n"
          "episode,return,length (one row per episode, after a header row).\n\n"
          "  --policy random     uniform random actions (default)\n"
          "  --policy noop       always action 0\n"
          "  --policy scripted   MinAtar/* only: the game's scripted policy (src/envs/minatar/minatar.c)\n"
          "  --episodes N        number of episodes (default 100)\n"
          "  --seed S            episode e resets with hash(S, e); random actions from hash(S, e, 1)\n"
          "  --max-steps M       truncate episodes after M steps (default: the env's own limit)\n"
          "  --sticky P          MinAtar/*, ALE/*: sticky-action probability (-1 off; default: the env's)\n"
          "  --no-ramping        MinAtar/*: no difficulty ramp\n");
}

// fills a from argv; prints the problem and returns 2 on bad usage
static int parse_args(int argc, char** argv, rollout_args* a) {
  memset(a, 0, sizeof *a);
  a->policy = "random";
  a->episodes = 100;
  for (int i = 1; i < argc; i++) {
    const char* opt = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(opt, "--no-ramping") == 0) {
      a->no_ramping = 1;
    } else if (strncmp(opt, "--", 2) == 0 && !has_value) {
      return fprintf(stderr, CMD ": %s needs a value (see " CMD " --help)\n", opt), 2;
    } else if (strcmp(opt, "--policy") == 0) {
      a->policy = argv[++i];
    } else if (strcmp(opt, "--episodes") == 0) {
      if (ne_cli_parse_int(CMD, opt, argv[++i], 1, 100000000, &a->episodes)) return 2;
    } else if (strcmp(opt, "--seed") == 0) {
      if (ne_cli_parse_int(CMD, opt, argv[++i], 0, 9000000000000000000LL, &a->seed)) return 2;
    } else if (strcmp(opt, "--max-steps") == 0) {
      if (ne_cli_parse_int(CMD, opt, argv[++i], 0, 1000000000, &a->max_steps)) return 2;
    } else if (strcmp(opt, "--sticky") == 0) {
      char* end;
      a->sticky = strtod(argv[++i], &end);
      if (*end || end == argv[i] || a->sticky > 1)
        return fprintf(stderr, CMD ": --sticky expects a probability <= 1 (or -1 for off), got '%s'\n", argv[i]), 2;
    } else if (strncmp(opt, "--", 2) == 0) {
      return fprintf(stderr, CMD ": unknown option '%s' (see " CMD " --help)\n", opt), 2;
    } else if (!a->env_id) {
      a->env_id = opt;
    } else {
      return fprintf(stderr, CMD ": unexpected argument '%s' (see " CMD " --help)\n", opt), 2;
    }
  }
  if (!a->env_id) return fprintf(stderr, CMD ": missing ENV_ID (see " CMD " --help)\n"), 2;
  if (strcmp(a->policy, "random") && strcmp(a->policy, "noop") && strcmp(a->policy, "scripted"))
    return fprintf(stderr, CMD ": --policy must be random, noop or scripted, got '%s'\n", a->policy), 2;
  return 0;
}

// the policy's action for the current observation, as an index into spec's action set
static int choose(const rollout_args* a, const ne_env_spec* spec, const ne_env_state* st, ne_rng* rng) {
  if (a->policy[0] == 'r') return (int)ne_rng_below(rng, (uint64_t)spec->n_actions);
  if (a->policy[0] == 'n') return 0;
  return ne_env_scripted_action(spec, st);  // a scripted action outside the minimal set plays noop
}

// runs the episodes and prints the rows; 1 on an env failure
static int run_episodes(const rollout_args* a, const ne_env_spec* spec) {
  ne_env_state* st = ne_env_state_create(spec);
  if (!st) return fprintf(stderr, CMD ": out of memory\n"), 1;
  printf("episode,return,length\n");
  for (long long e = 0; e < a->episodes; e++) {
    ne_rng rng;
    ne_rng_seed(&rng, ne_hash2(ne_hash2((uint64_t)a->seed, (uint64_t)e), 1));
    ne_episode ep = {.env = spec, .state = st};  // no policy: choose() picks the actions
    int rc = ne_episode_begin(&ep, ne_hash2((uint64_t)a->seed, (uint64_t)e));
    while (!ep.done) {
      float act = (float)choose(a, spec, st, &rng);
      rc = ne_episode_act(&ep, &act);
    }
    if (rc) {
      ne_env_state_destroy(st);
      return fprintf(stderr, CMD ": %s: episode %lld failed: %s\n", spec->id, e, ne_strerror(rc)), 1;
    }
    printf("%lld,%.17g,%llu\n", e, ep.ret, (unsigned long long)ep.steps);
  }
  ne_env_state_destroy(st);
  return 0;
}

int ne_cmd_rollouts(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) return usage(stdout), 0;
  rollout_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  // the env, its options, and what the policy needs from it
  char err[NE_ERRSTR_LEN] = "";
  ne_env_options opt = {0};
  opt.max_episode_steps = (int)a.max_steps;
  ne_env_spec* spec = NULL;
  if ((rc = ne_env_make(a.env_id, &opt, &spec, err)) != 0 ||
      (rc = ne_env_set_pixel_options(spec, a.sticky, !a.no_ramping, err)) != 0) {
    ne_env_spec_destroy(spec);
    return fprintf(stderr, CMD ": %s\n", err), 2;
  }
  if (!spec->discrete || (a.policy[0] == 's' && !ne_env_has_scripted_policy(spec))) {
    fprintf(stderr, CMD ": %s: --policy %s needs a %s env\n", a.env_id, a.policy,
            spec->discrete ? "MinAtar/*" : "discrete-action");
    ne_env_spec_destroy(spec);
    return 2;
  }
  rc = run_episodes(&a, spec);
  ne_env_spec_destroy(spec);
  return rc;
}
