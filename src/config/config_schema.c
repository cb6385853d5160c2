// SPDX-License-Identifier: MIT
// The config schema: one static array of keys per [section], and the list of sections in the order
// they are written. Adding an algorithm = one key array + one line in `sections` naming the
// algorithm, which makes that section an error under any other run.algorithm (and add the algorithm
// to run.algorithm's choices). Help strings end up as comments in every run's config.ini.
#include <assert.h>
#include <pthread.h>  // pthread_once: the flat schema is built once, race-free
#include <string.h>

#include "config/config_int.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// [run]: what to train and when to stop; where results go.
static const ne_config_key run_keys[] = {
    {"run", "algorithm", NE_CFG_ENUM, "ga", 1, 0,
     "ga|es|ars|pgpe|snes|cmaes|sepcmaes|nevergrad|python|ns-es|nsr-es|nsra-es",
     "training algorithm; its own section ([ga], ...) holds its settings"},
    {"run", "seed", NE_CFG_INT, "0", 0, 9.2e18, NULL,
     "run seed: every random choice derives from it, so a seed reproduces a run bit for bit"},
    {"run", "generations", NE_CFG_INT, "100", 0, 1e9, NULL, "stop after this many generations (0 = no limit)"},
    {"run", "max_env_steps", NE_CFG_INT, "0", 0, 9e18, NULL,
     "stop once this many environment steps were taken in total (0 = no limit)"},
    {"run", "max_seconds", NE_CFG_FLOAT, "0", 0, 1e9, NULL,
     "stop after this many seconds of wall-clock time (0 = no limit)"},
    {"run", "target", NE_CFG_STRING, "auto", 1, 0, NULL,
     "stop when the elite's re-evaluation mean reaches this return: auto (the env's reward "
     "threshold), none, or a number (bbob/*: a function value to get at or below; auto = 1e-8)"},
    {"run", "threads", NE_CFG_INT, "0", 0, 1024, NULL, "evaluation threads (0 = all cores)"},
    {"run", "out", NE_CFG_STRING, "runs", 1, 0, NULL,
     "parent directory of run directories (each run gets <config>-<timestamp> inside)"},
    {"run", "checkpoint_every", NE_CFG_INT, "1", 1, 1e6, NULL, "write a checkpoint every N generations"},
    {"run", "keep_checkpoints", NE_CFG_INT, "3", 1, 1000, NULL, "number of most recent checkpoints kept"},
    {"run", "plot_every", NE_CFG_INT, "10", -1, 1e6, NULL,
     "redraw curve.png every N generations (0 = only at the end; -1 = never, e.g. in sweeps and benchmarks: "
     "gnuplot costs ~60 ms of CPU a drawing; `neuroevo plot RUN_DIR` draws it later)"},
    {"run", "plot_seconds", NE_CFG_FLOAT, "10", 0, 1e9, NULL,
     "and at most once every S seconds: a redraw stops training for ~40 ms of gnuplot (0 = no limit)"},
    {"run", "eval_episodes", NE_CFG_INT, "100", 1, 1e6, NULL, "episodes of the final evaluation of the best genome"},
    {"run", "progress_seconds", NE_CFG_FLOAT, "60", 0, 1e9, NULL,
     "a generation still running after S seconds says how far it is every S seconds (local threads; 0 = "
     "never)"},
    {"run", "overlap", NE_CFG_BOOL, "true", 1, 0, NULL,
     "evaluate the next generation's candidates that do not wait for a generation's last round alongside it "
     "(the Deep GA's children beside its elite re-evaluation; NS-ES's next population beside its centre round with "
     "novelty.selection = round_robin): the same results, fewer idle workers (docs/scaling.md)"},
    {"run", "track", NE_CFG_STRING, "", 1, 0, NULL,
     "MLflow tracking server (e.g. http://127.0.0.1:5000): params, tags, each generation's metrics and the "
     "artifacts go there from a thread of the run's own; empty = $MLFLOW_TRACKING_URI if set; none = off"},
    {"run", "track_experiment", NE_CFG_STRING, "", 1, 0, NULL,
     "its MLflow experiment (empty: a study's directory name for a study's runs, else the config's name)"},
};

// [env]: the environment and how fitness is measured on it.
static const ne_config_key env_keys[] = {
    {"env", "id", NE_CFG_STRING, "CartPole-v1", 1, 0, NULL,
     "environment id (`neuroevo envs` lists them), e.g. CartPole-v1"},
    {"env", "episodes", NE_CFG_INT, "1", 1, 1e5, NULL, "episodes per fitness evaluation; fitness is their mean return"},
    {"env", "max_episode_steps", NE_CFG_INT, "0", 0, 1e9, NULL,
     "truncate episodes after this many steps (0 = the env's own TimeLimit)"},
    {"env", "dim", NE_CFG_INT, "10", 1, 1e7, NULL,
     "dimension of black-box functions (bbob/*); ignored by other environments"},
    {"env", "shift_seed", NE_CFG_INT, "0", 0, 9.2e18, NULL,
     "bbob/*: random optimum shift and rotation from this seed (0 = the plain function)"},
    // pixel families (src/envs/minatar, src/envs/ale)
    {"env", "sticky_prob", NE_CFG_FLOAT, "0", -1, 1, NULL,
     "MinAtar/*, ALE/*: sticky actions, the probability of repeating the previous action: 0 = the "
     "env's default (MinAtar 0.1, ALE off as in the Deep GA paper), -1 = off, 0.25 = Gymnasium v5"},
    {"env", "difficulty_ramping", NE_CFG_BOOL, "true", 1, 0, NULL,
     "MinAtar/*: speed the game up over an episode as MinAtar does (false = a constant difficulty)"},
    // novelty search (src/envs/env_behaviour.c, src/algos/novelty.c)
    {"env", "behaviour", NE_CFG_STRING, "auto", 1, 0, NULL,
     "what novelty search compares between episodes (the behaviour characterization, averaged over "
     "a candidate's episodes): auto = the env's own (the final x-y position in the maze and MuJoCo "
     "locomotion, the final RAM for Atari, else the final observation), obs = the final observation, "
     "obs:I,J,... = those components of it"},
    // task families (meta-learning: src/envs/point, src/envs/mujoco/*_tasks.c)
    {"env", "task", NE_CFG_STRING, "", 1, 0, NULL,
     "task families (PointNav2D-v0, HalfCheetahDir-v5, ...): fix every episode's task, comma-separated "
     "values (e.g. 0.3,-0.2 = PointNav2D's goal; `neuroevo envs` shows each family's); empty = draw a "
     "task per episode from the family's distribution (the task mixture)"},
};

// [policy]: the network that maps observations to actions.
static const ne_config_key policy_keys[] = {
    {"policy", "hidden", NE_CFG_INTLIST, "64,64", 1, 65536, NULL,
     "hidden layer widths, comma-separated, at most 7 layers (empty = a linear policy)"},
    {"policy", "activation", NE_CFG_ENUM, "tanh", 1, 0, "tanh|relu", "hidden-layer nonlinearity"},
    {"policy", "tanh", NE_CFG_ENUM, "float", 1, 0, "float|double",
     "how tanh (activation and head) is computed, the same bits on every CPU either way: float = a "
     "single-precision rational (6.3 ulp, ~1.8x faster), double = a double-precision one (0.53 ulp; what "
     "run directories and agent files written before this key used)"},
    {"policy", "fma", NE_CFG_BOOL, "true", 1, 0, NULL,
     "MLP policies: fuse each multiply-add of the dense layers and of the float tanh (one rounding; up to 1.6x "
     "faster forwards on AVX2/AVX-512, the same bits on every CPU either way); false = round products and sums "
     "separately, what run directories and agent files written before this key used. Conv policies round "
     "separately"},
    {"policy", "head", NE_CFG_ENUM, "auto", 1, 0, "auto|argmax|tanh|clip|gaussian|raw",
     "output head: argmax (discrete actions), tanh or clip (continuous), gaussian (continuous, stochastic: "
     "a learned log-std per action, for meta.update = pg; evaluated at its mean), raw (continuous, not "
     "clipped: ARS's linear policies; the env clips where its family does, MuJoCo's control costs count the "
     "action as given), auto = from the action space"},
    {"policy", "init_log_std", NE_CFG_FLOAT, "0", -13.8, 5, NULL,
     "head = gaussian: initial log standard deviation of every action, in normalized units where the "
     "action box is [-1, 1] (0 = std 1, MAML's init_std)"},
    {"policy", "init", NE_CFG_ENUM, "normc", 1, 0, "normc|xavier|he|zeros",
     "weight initialization of the initial genomes (zeros: all parameters 0, e.g. ARS's linear policies)"},
    // conv policies for image observations (src/policy/conv.c, src/policy/conv_config.c)
    {"policy", "type", NE_CFG_ENUM, "mlp", 1, 0, "mlp|conv",
     "mlp (dense layers) or conv (conv layers over an image observation, then the hidden dense layers)"},
    {"policy", "conv", NE_CFG_STRING, "", 1, 0, NULL,
     "conv layers as FILTERSxKxK/STRIDE, comma-separated, VALID padding (type = conv), e.g. 32x8x8/4,64x4x4/2"},
    {"policy", "preset", NE_CFG_ENUM, "none", 1, 0, "none|nature|minatar",
     "a published conv net; implies type = conv and fixes conv, hidden and activation = relu: nature = "
     "DQN Nature (32x8x8/4,64x4x4/2,64x3x3/1, 512), minatar = MinAtar's (16x3x3/1, 128)"},
};

// [ga]: Deep GA (Such et al. 2017): truncation selection + Gaussian mutation, genomes as seed chains.
static const ne_config_key ga_keys[] = {
    {"ga", "population", NE_CFG_INT, "1000", 2, 1e7, NULL, "genomes evaluated per generation"},
    {"ga", "truncation", NE_CFG_INT, "20", 1, 1e7, NULL,
     "the top T genomes become the parents of the next generation (T <= population)"},
    {"ga", "sigma", NE_CFG_FLOAT, "0.002", 1e-9, 10, NULL,
     "mutation strength: standard deviation of the Gaussian noise added to every parameter"},
    {"ga", "elite_candidates", NE_CFG_INT, "10", 0, 1e7, NULL,
     "top candidates re-evaluated each generation to pick the elite (0 = no re-evaluation)"},
    {"ga", "elite_episodes", NE_CFG_INT, "30", 0, 1e6, NULL,
     "episodes run for each re-evaluated candidate; more = a less noisy choice of the elite"},
    {"ga", "elitism", NE_CFG_BOOL, "true", 1, 0, NULL, "copy the elite unchanged into the next generation"},
    {"ga", "shared_episodes", NE_CFG_BOOL, "false", 1, 0, NULL,
     "every candidate of a generation runs the same episode seeds (and every re-evaluated one the same "
     "re-evaluation seeds): the same start states and, with [meta], the same tasks, so fitness differences "
     "are the genomes' and not the draws' (false: each candidate its own, as the Deep GA)"},
    {"ga", "cache_mb", NE_CFG_INT, "512", 1, 1e7, NULL,
     "memory budget (MiB) per worker for cached parameter vectors of parents"},
    // novelty search (src/algos/novelty.c): GA-NS of Such et al. 2017
    {"ga", "novelty", NE_CFG_BOOL, "false", 1, 0, NULL,
     "GA-NS: choose parents by novelty (k-nearest-neighbour distance of their behaviours to the "
     "archive and the population, [novelty]) instead of reward; the elite is still chosen by reward"},
};

// ---- the ES family (src/algos/es.c, ars.c, pgpe.c, snes.c) ---------------------------------

// [es]: OpenAI ES (Salimans et al. 2017): mirrored sampling, centered ranks, Adam, obs normalization.
static const ne_config_key es_keys[] = {
    {"es", "population", NE_CFG_INT, "100", 2, 1e7, NULL,
     "candidates per generation, as mirrored pairs centre +- sigma*eps (must be even)"},
    {"es", "sigma", NE_CFG_FLOAT, "0.02", 1e-9, 10, NULL, "noise standard deviation of the perturbations"},
    {"es", "optimizer", NE_CFG_ENUM, "adam", 1, 0, "adam|sgd",
     "how the centre follows the gradient estimate: adam, or sgd with momentum"},
    {"es", "lr", NE_CFG_FLOAT, "0.01", 0, 10, NULL, "optimizer step size"},
    {"es", "momentum", NE_CFG_FLOAT, "0.9", 0, 1, NULL, "momentum of the sgd optimizer"},
    {"es", "l2coeff", NE_CFG_FLOAT, "0.005", 0, 10, NULL,
     "L2 weight decay: l2coeff * theta is subtracted from the gradient estimate"},
    {"es", "obs_norm", NE_CFG_BOOL, "true", 1, 0, NULL,
     "normalize observations with running statistics of every population rollout"},
    {"es", "obs_clip", NE_CFG_FLOAT, "5", 0, 1e6, NULL, "clip normalized observations to +-obs_clip (0 = no clip)"},
    {"es", "eval_episodes", NE_CFG_INT, "5", 1, 1e6, NULL,
     "episodes of the unperturbed centre each generation (its mean is the elite score)"},
    {"es", "noise", NE_CFG_ENUM, "table", 1, 0, "generator|table",
     "where perturbations come from: table (a shared table of normals built once per process from the "
     "run seed, OpenAI ES style: a perturbation is a slice, read instead of generated) or generator "
     "(Philox per parameter, no memory)"},
    {"es", "noise_table_mb", NE_CFG_INT, "0", 0, 65536, NULL,
     "noise = table: its size in MiB (4 bytes a float; must hold the policy's parameters, and should "
     "hold many times more, since perturbations are overlapping slices of it); 0 = auto: 1000 floats "
     "per parameter, at least 0.25 and at most 64 MiB (or 4 times the parameters)"},
};

// [ars]: Augmented Random Search (Mania et al. 2018), V1/V2 and the top-b variants.
static const ne_config_key ars_keys[] = {
    {"ars", "directions", NE_CFG_INT, "8", 1, 1e7, NULL, "random directions per generation (2 rollouts each)"},
    {"ars", "top", NE_CFG_INT, "0", 0, 1e7, NULL, "use the b best directions by max(r+, r-) (0 = all directions)"},
    {"ars", "step_size", NE_CFG_FLOAT, "0.02", 0, 10, NULL, "step size alpha"},
    {"ars", "noise", NE_CFG_FLOAT, "0.03", 1e-9, 10, NULL, "exploration noise nu (std of the perturbations)"},
    {"ars", "version", NE_CFG_ENUM, "v2", 1, 0, "v1|v2",
     "v1: raw observations; v2: observations normalized by the mean and std of all states seen"},
    {"ars", "eval_episodes", NE_CFG_INT, "5", 1, 1e6, NULL,
     "episodes of the unperturbed policy each generation (its mean is the elite score)"},
    {"ars", "shift", NE_CFG_FLOAT, "0", -1e9, 1e9, NULL,
     "subtracted from every step's reward of the perturbed rollouts before the update (ARS's shift: "
     "the survival bonus of Hopper, Walker2d, Ant and Humanoid, so that a longer episode is not better "
     "by living alone); population figures and the centre's evaluation stay unshifted"},
    {"ars", "noise_source", NE_CFG_ENUM, "table", 1, 0, "generator|table",
     "where the directions come from: table (a shared table of normals built once per process from "
     "the run seed) or generator (Philox); es.noise's counterpart, ars.noise being nu"},
    {"ars", "noise_table_mb", NE_CFG_INT, "0", 0, 65536, NULL,
     "noise_source = table: its size in MiB (must hold the policy's parameters, better many times "
     "more); 0 = auto, as es.noise_table_mb"},
};

// [pgpe]: PGPE (Sehnke et al. 2010) with symmetric sampling and the ClipUp optimizer (Toklu et al. 2020).
static const ne_config_key pgpe_keys[] = {
    {"pgpe", "population", NE_CFG_INT, "100", 2, 1e7, NULL,
     "candidates per generation, as symmetric pairs mu +- sigma*eps (must be even)"},
    {"pgpe", "optimizer", NE_CFG_ENUM, "clipup", 1, 0, "clipup|adam|sgd", "how the centre follows its gradient"},
    {"pgpe", "center_lr", NE_CFG_FLOAT, "0.15", 0, 100, NULL, "step size of the centre's optimizer"},
    {"pgpe", "momentum", NE_CFG_FLOAT, "0.9", 0, 1, NULL, "ClipUp / sgd momentum"},
    {"pgpe", "max_speed", NE_CFG_FLOAT, "0", 0, 100, NULL, "ClipUp's largest step norm (0 = 2 * center_lr)"},
    {"pgpe", "stdev_init", NE_CFG_FLOAT, "0.1", 1e-9, 100, NULL, "initial standard deviation of every parameter"},
    {"pgpe", "radius_init", NE_CFG_FLOAT, "0", 0, 1e6, NULL,
     "if > 0: initial stdev = radius_init / sqrt(number of parameters), overriding stdev_init"},
    {"pgpe", "stdev_lr", NE_CFG_FLOAT, "0.1", 0, 100, NULL, "learning rate of the standard deviations"},
    {"pgpe", "stdev_max_change", NE_CFG_FLOAT, "0.2", 0, 1, NULL,
     "largest relative change of a standard deviation per generation (0 = unlimited)"},
    {"pgpe", "stdev_min", NE_CFG_FLOAT, "0", 0, 1e6, NULL, "lower bound of the standard deviations (0 = none)"},
    {"pgpe", "stdev_max", NE_CFG_FLOAT, "0", 0, 1e6, NULL, "upper bound of the standard deviations (0 = none)"},
    {"pgpe", "obs_norm", NE_CFG_BOOL, "false", 1, 0, NULL, "normalize observations with running statistics"},
    {"pgpe", "obs_clip", NE_CFG_FLOAT, "5", 0, 1e6, NULL, "clip normalized observations to +-obs_clip (0 = no clip)"},
    {"pgpe", "eval_episodes", NE_CFG_INT, "5", 1, 1e6, NULL,
     "episodes of the centre each generation (its mean is the elite score)"},
    {"pgpe", "noise", NE_CFG_ENUM, "table", 1, 0, "generator|table",
     "where the samples' eps come from: table (slices of a shared table of normals built once from the "
     "run seed, multiplied by the per-parameter stdevs) or generator (Philox per parameter)"},
    {"pgpe", "noise_table_mb", NE_CFG_INT, "0", 0, 65536, NULL,
     "noise = table: its size in MiB (0 = auto, as es.noise_table_mb)"},
};

// [snes]: separable NES (Schaul et al. 2011): NES utilities, mu and log-sigma updates.
static const ne_config_key snes_keys[] = {
    {"snes", "population", NE_CFG_INT, "0", 0, 1e7, NULL,
     "candidates per generation (0 = 4 + floor(3 ln d), d = number of parameters)"},
    {"snes", "center_lr", NE_CFG_FLOAT, "1", 0, 100, NULL, "learning rate of the centre (eta_mu)"},
    {"snes", "stdev_lr", NE_CFG_FLOAT, "0", 0, 100, NULL,
     "learning rate of the log standard deviations (0 = (3 + ln d) / (5 sqrt d))"},
    {"snes", "stdev_init", NE_CFG_FLOAT, "0.1", 1e-9, 100, NULL, "initial standard deviation of every parameter"},
    {"snes", "obs_norm", NE_CFG_BOOL, "false", 1, 0, NULL, "normalize observations with running statistics"},
    {"snes", "obs_clip", NE_CFG_FLOAT, "5", 0, 1e6, NULL, "clip normalized observations to +-obs_clip (0 = no clip)"},
    {"snes", "eval_episodes", NE_CFG_INT, "5", 1, 1e6, NULL,
     "episodes of the centre each generation (its mean is the elite score)"},
    {"snes", "noise", NE_CFG_ENUM, "table", 1, 0, "generator|table",
     "where the samples' s_k come from: table (slices of a shared table of normals built once from the "
     "run seed) or generator (Philox per parameter)"},
    {"snes", "noise_table_mb", NE_CFG_INT, "0", 0, 65536, NULL,
     "noise = table: its size in MiB (0 = auto, as es.noise_table_mb)"},
};

// ---- novelty search (src/algos/novelty.c, nses.c; ga.c with ga.novelty) ---------------------

// [novelty]: the archive and k-NN novelty of NS-ES / NSR-ES / NSRA-ES (Conti et al. 2018) and GA-NS.
static const ne_config_key novelty_keys[] = {
    {"novelty", "k", NE_CFG_INT, "0", 0, 100000, NULL,
     "novelty = mean distance to the k nearest behaviours (0 = the papers' k: 10 for the ES family, "
     "25 for the GA)"},
    {"novelty", "archive_max", NE_CFG_INT, "10000", 1, 1e8, NULL,
     "most behaviours the archive keeps; past that, reservoir sampling keeps a uniform sample of every "
     "behaviour ever added (memory: archive_max x the behaviour's floats x 4 bytes)"},
    {"novelty", "archive_prob", NE_CFG_FLOAT, "0.01", 0, 1, NULL,
     "ga.novelty: probability that each genome's behaviour enters the archive each generation (Such et "
     "al. 2017); the ES family archives every centre it updates"},
    {"novelty", "meta_population", NE_CFG_INT, "5", 1, 1000, NULL,
     "ES family: M centres, each with its own optimizer and observation statistics; one is updated "
     "per generation"},
    {"novelty", "selection", NE_CFG_ENUM, "novelty", 1, 0, "novelty|round_robin",
     "ES family: which centre a generation updates: novelty (chosen with probability proportional "
     "to its novelty, the paper's) or round_robin"},
    {"novelty", "weight", NE_CFG_FLOAT, "1", 0, 1, NULL,
     "nsra-es: initial weight w of the reward (1 - w goes to novelty); nsr-es uses 0.5, ns-es 0"},
    {"novelty", "weight_delta", NE_CFG_FLOAT, "0.05", 0, 1, NULL,
     "nsra-es: w += delta when the centre's evaluation beats the best so far, w -= delta after "
     "weight_patience generations without"},
    {"novelty", "weight_patience", NE_CFG_INT, "10", 1, 1e6, NULL,
     "nsra-es: generations without a new best centre evaluation before w decreases (Conti et al. use "
     "10 or 50 depending on the domain)"},
};

// ---- CMA-ES (src/algos/cmaes.c, sepcmaes.c; shared settings in cma_core.c) ------------------

// The keys [cmaes] and [sepcmaes] share; `active` exists only for the full covariance matrix.
// clang-format off
#define NE_CMA_KEYS(sec)                                                                              \
    {sec, "sigma0", NE_CFG_FLOAT, "0.1", 1e-12, 1e6, NULL,                                            \
     "initial step size: standard deviation of the first samples around x0"},                         \
    {sec, "popsize", NE_CFG_INT, "0", 0, 1e7, NULL,                                                   \
     "samples per generation lambda (0 = 4 + floor(3 ln n), n = number of parameters)"},              \
    {sec, "ipop", NE_CFG_BOOL, "true", 1, 0, NULL,                                                    \
     "IPOP: when a stop criterion fires (tolfun, tolx, conditioning, ...) restart with twice the population"}, \
    {sec, "max_restarts", NE_CFG_INT, "9", 0, 20, NULL, "most IPOP restarts in a run"},               \
    {sec, "tolfun", NE_CFG_FLOAT, "1e-12", 0, 1e30, NULL,                                             \
     "restart when recent best and current fitness values span less than this"},                       \
    {sec, "tolx", NE_CFG_FLOAT, "1e-12", 0, 1e30, NULL,                                               \
     "restart when every coordinate's standard deviation is below tolx * sigma0"},                     \
    {sec, "tolcond", NE_CFG_FLOAT, "1e14", 1, 1e300, NULL,                                            \
     "restart when the covariance matrix's condition number exceeds this"},                            \
    {sec, "tolupsigma", NE_CFG_FLOAT, "1e20", 1, 1e300, NULL,                                         \
     "restart when sigma / sigma0 exceeds this times the largest axis length (divergence)"},           \
    {sec, "x0", NE_CFG_ENUM, "auto", 1, 0, "auto|policy|zeros|uniform",                               \
     "initial mean: policy init (new seed per restart), zeros, or uniform in [-x0_range, x0_range]; "   \
     "auto = policy for networks, uniform for bbob/*"},                                                 \
    {sec, "x0_range", NE_CFG_FLOAT, "4", 0, 1e9, NULL, "half-width of the box of x0 = uniform"},     \
    {sec, "eval_mean", NE_CFG_BOOL, "true", 1, 0, NULL,                                               \
     "evaluate the mean each generation as one more candidate (its return is the elite score)"},       \
    {sec, "mean_episodes", NE_CFG_INT, "0", 0, 1e6, NULL,                                             \
     "episodes of the mean's evaluation (0 = env.episodes)"}
// clang-format on

// [cmaes]: CMA-ES (Hansen's 2016 tutorial) with a full covariance matrix and IPOP restarts.
static const ne_config_key cmaes_keys[] = {
    NE_CMA_KEYS("cmaes"),
    {"cmaes", "active", NE_CFG_BOOL, "true", 1, 0, NULL,
     "active CMA: negative recombination weights for the worst samples (2016 tutorial default)"},
};

// [sepcmaes]: sep-CMA-ES (Ros & Hansen 2008): diagonal covariance, O(n) per sample.
static const ne_config_key sepcmaes_keys[] = {
    NE_CMA_KEYS("sepcmaes"),
};
#undef NE_CMA_KEYS

// [meta]: meta-learning (GA-MAML, ES-MAML; src/exec/meta_config.c, adapt.c): fitness = the return
// after an inner loop on each of meta.tasks sampled tasks of a task family. Any run.algorithm.
static const ne_config_key meta_keys[] = {
    {"meta", "tasks", NE_CFG_INT, "0", 0, 1e5, NULL,
     "tasks a candidate adapts to per evaluation (x its episodes: ga.elite_episodes, es.eval_episodes "
     "count in units of this); fitness = mean return after the inner loop; 0 = no meta-learning"},
    {"meta", "update", NE_CFG_ENUM, "pg", 1, 0, "pg|es|hill",
     "inner-loop update: pg (MAML's policy gradient; needs policy.head = gaussian), es (ES-MAML's "
     "ES-gradient step), hill (ES-MAML's hill climbing)"},
    {"meta", "inner_steps", NE_CFG_INT, "1", 1, 100, NULL, "K: inner-loop updates per task"},
    {"meta", "inner_episodes", NE_CFG_INT, "20", 1, 1e5, NULL,
     "episodes one update runs: pg rollouts (MAML's fast batch 20), es perturbed episodes (mirrored "
     "pairs: even), hill perturbations tried"},
    {"meta", "eval_episodes", NE_CFG_INT, "1", 1, 1e5, NULL,
     "episodes of the deterministic policy that measure each stage (before, after each update)"},
    {"meta", "inner_lr", NE_CFG_FLOAT, "0.1", 0, 1e6, NULL,
     "inner step size (pg: MAML's fast_lr 0.1; es: ES-MAML's alpha 0.05)"},
    {"meta", "inner_sigma", NE_CFG_FLOAT, "0.1", 1e-9, 100, NULL,
     "es, hill: perturbation standard deviation (ES-MAML's precision parameter 0.1)"},
    {"meta", "discount", NE_CFG_FLOAT, "0.99", 0, 1, NULL, "pg: discount of the returns-to-go"},
    {"meta", "normalize_adv", NE_CFG_BOOL, "true", 1, 0, NULL,
     "pg: scale the advantages to mean 0 and std 1 (MAML and ProMP do)"},
};

// ---- Python optimizers in a server process (src/algos/pyopt.c, python/neuroevo/optserver.py) -------

// The keys [nevergrad] and [python] share: the start point, the recommendation's evaluation, resume.
// clang-format off
#define NE_PYOPT_KEYS(sec)                                                                            \
    {sec, "x0", NE_CFG_ENUM, "auto", 1, 0, "auto|policy|zeros|uniform",                               \
     "start point: the policy's init, zeros, or uniform in [-x0_range, x0_range]; auto = policy for "  \
     "networks, uniform for bbob/*"},                                                                  \
    {sec, "x0_range", NE_CFG_FLOAT, "4", 0, 1e9, NULL, "half-width of the box of x0 = uniform"},      \
    {sec, "eval_recommendation", NE_CFG_BOOL, "true", 1, 0, NULL,                                     \
     "evaluate the optimizer's recommendation each generation as one more candidate (its return is "   \
     "the elite score and best.params)"},                                                              \
    {sec, "eval_episodes", NE_CFG_INT, "0", 0, 1e6, NULL,                                             \
     "episodes of the recommendation's evaluation (0 = env.episodes)"},                                \
    {sec, "snapshot_mb", NE_CFG_INT, "16", 0, 1e6, NULL,                                              \
     "checkpoints hold the optimizer's pickle while it is at most this many MiB, else the losses told "\
     "since the last one, replayed on resume (0 = always replay)"},                                    \
    {sec, "call_timeout", NE_CFG_FLOAT, "0", 0, 1e9, NULL,                                             \
     "seconds one optimizer call (ask, tell, pickle) may take before the run fails (0 = "              \
     "$NEUROEVO_OPT_TIMEOUT, else 600); a longer call is announced every 30 s while it waits"}
// clang-format on

// [nevergrad]: any optimizer of Nevergrad's registry.
static const ne_config_key nevergrad_keys[] = {
    {"nevergrad", "optimizer", NE_CFG_STRING, "NGOpt", 1, 0, NULL,
     "a name in nevergrad.optimizers.registry: NGOpt, TBPSA, CMA, DE, TwoPointsDE, PSO, OnePlusOne, ..."},
    {"nevergrad", "population", NE_CFG_INT, "16", 1, 1e6, NULL,
     "candidates asked per generation (Nevergrad's num_workers)"},
    {"nevergrad", "budget", NE_CFG_INT, "0", 0, 9e15, NULL,
     "Nevergrad's budget in evaluations (0 = run.generations x population, or none without a "
     "generation limit)"},
    {"nevergrad", "sigma", NE_CFG_FLOAT, "0.1", 1e-12, 1e6, NULL,
     "initial step size: the mutation sigma of the parametrization (Nevergrad's own default is 1)"},
    NE_PYOPT_KEYS("nevergrad"),
};

// [python]: any ask/tell class.
static const ne_config_key python_keys[] = {
    {"python", "class", NE_CFG_STRING, "", 1, 0, NULL,
     "the optimizer class as module:Class (e.g. cma:CMAEvolutionStrategy, my_opt:Optimizer)"},
    {"python", "options", NE_CFG_STRING, "", 1, 0, NULL,
     "its keyword arguments, Python expressions over x0, dim, seed, budget, np: x0=x0, sigma0=0.1"},
    {"python", "population", NE_CFG_INT, "0", 0, 1e6, NULL,
     "0: ask() returns the generation's batch; N: ask() returns one candidate and is called N times"},
    {"python", "maximize", NE_CFG_BOOL, "false", 1, 0, NULL,
     "tell the returns themselves (false: tell losses = -return, as pycma and Nevergrad minimize)"},
    NE_PYOPT_KEYS("python"),
};
#undef NE_PYOPT_KEYS

// Every section, in the order the resolved config is written. algorithm != NULL marks a section
// that only that run.algorithm may use.
static const ne__cfg_section sections[] = {
    {"run", run_keys, COUNT(run_keys), NULL, "what to train, when to stop, where results go"},
    {"env", env_keys, COUNT(env_keys), NULL, "the environment and how fitness is measured"},
    {"policy", policy_keys, COUNT(policy_keys), NULL, "the network mapping observations to actions"},
    {"ga", ga_keys, COUNT(ga_keys), "ga", "Deep GA: truncation selection + Gaussian mutation"},
    {"es", es_keys, COUNT(es_keys), "es|ns-es|nsr-es|nsra-es", "OpenAI ES: mirrored sampling, centered ranks, Adam"},
    {"ars", ars_keys, COUNT(ars_keys), "ars", "Augmented Random Search (V1/V2, top-b directions)"},
    {"pgpe", pgpe_keys, COUNT(pgpe_keys), "pgpe", "PGPE with symmetric sampling and ClipUp"},
    {"snes", snes_keys, COUNT(snes_keys), "snes", "separable natural evolution strategies"},
    {"cmaes", cmaes_keys, COUNT(cmaes_keys), "cmaes", "CMA-ES, full covariance, IPOP restarts"},
    {"sepcmaes", sepcmaes_keys, COUNT(sepcmaes_keys), "sepcmaes", "sep-CMA-ES, diagonal covariance, IPOP restarts"},
    {"meta", meta_keys, COUNT(meta_keys), NULL, "meta-learning: fitness after an inner loop on sampled tasks"},
    {"nevergrad", nevergrad_keys, COUNT(nevergrad_keys), "nevergrad", "a Nevergrad optimizer in a server process"},
    {"python", python_keys, COUNT(python_keys), "python", "any Python ask/tell class in a server process"},
    {"novelty", novelty_keys, COUNT(novelty_keys), "ns-es|nsr-es|nsra-es|ga:novelty",
     "novelty search: behaviour archive, k-NN novelty, the ES meta-population"},
};

// Item limits of INTLIST keys that have one tighter than NE__CFG_LIST_CAP.
static const struct {
  const char* section;  // section of the key
  const char* key;      // the INTLIST key
  int max_items;        // most items allowed
} list_limits[] = {
    {"policy", "hidden", 7},  // NE_POLICY_MAX_LAYERS weight layers = 7 hidden + the output layer
};

// Keys whose meaning in a resolved config written before them differs from their default: what such
// a config (which lacks them) meant. A run directory made by an older build then resumes, and is
// evaluated, with the behaviour it started with, while new runs get the new defaults.
static const struct {
  const char* section;  // section of the key
  const char* key;      // the key
  const char* value;    // its value before the key existed or before its default changed
} legacy_values[] = {
    // the table became the ES family's default perturbation source; run directories
    // written before es.noise existed used the generator
    {"es", "noise", "generator"},
    {"es", "noise_table_mb", "64"},
    {"ars", "noise_source", "generator"},
    {"ars", "noise_table_mb", "64"},
    {"pgpe", "noise", "generator"},
    {"pgpe", "noise_table_mb", "64"},
    {"snes", "noise", "generator"},
    {"snes", "noise_table_mb", "64"},
    // tanh in float became the default; before, it was computed in double
    {"policy", "tanh", "double"},
    // fused multiply-adds became the MLPs' default; before, each product was rounded
    {"policy", "fma", "false"},
};

const char* ne__config_legacy_value(const ne_config_key* key) {
  for (int i = 0; i < COUNT(legacy_values); i++)
    if (strcmp(legacy_values[i].section, key->section) == 0 && strcmp(legacy_values[i].key, key->key) == 0)
      return legacy_values[i].value;
  return NULL;
}

// The flat schema, assembled once from the per-section arrays.
#define MAX_KEYS 512
static ne_config_key flat[MAX_KEYS];
static int n_flat;
static pthread_once_t flat_once = PTHREAD_ONCE_INIT;

static void build_flat(void) {
  for (int s = 0; s < COUNT(sections); s++) {
    for (int k = 0; k < sections[s].n_keys; k++) {
      assert(n_flat < MAX_KEYS);
      // a key array filed under the wrong section is a schema bug
      assert(strcmp(sections[s].keys[k].section, sections[s].name) == 0);
      flat[n_flat++] = sections[s].keys[k];
    }
  }
}

const ne__cfg_section* ne__config_sections(int* n) {
  *n = COUNT(sections);
  return sections;
}

const ne_config_key* ne_config_schema(void) {
  pthread_once(&flat_once, build_flat);
  return flat;
}

int ne_config_schema_count(void) {
  pthread_once(&flat_once, build_flat);
  return n_flat;
}

int ne__config_list_max(const ne_config_key* key) {
  for (int i = 0; i < COUNT(list_limits); i++)
    if (strcmp(list_limits[i].section, key->section) == 0 && strcmp(list_limits[i].key, key->key) == 0)
      return list_limits[i].max_items < NE__CFG_LIST_CAP ? list_limits[i].max_items : NE__CFG_LIST_CAP;
  return NE__CFG_LIST_CAP;
}
