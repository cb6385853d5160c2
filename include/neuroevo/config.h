// SPDX-License-Identifier: MIT
// Experiment configuration: INI files (parsed with inih) plus `section.key=value` overrides,
// validated against one schema table. Every key has a default, so `[run] algorithm = ga` and
// `[env] id = CartPole-v1` make a complete config. Errors name the file, line, key, the expected
// form, and the nearest valid key. The resolved config (defaults + file + overrides) is written to
// the run directory and is all that `resume` needs.
#ifndef NEUROEVO_CONFIG_H
#define NEUROEVO_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Value types a schema key can have.
typedef enum ne_cfg_type {
  NE_CFG_INT = 0,      // 64-bit integer, range-checked
  NE_CFG_FLOAT = 1,    // double, range-checked ("nan"/"inf" rejected)
  NE_CFG_BOOL = 2,     // true/false/yes/no/on/off/1/0
  NE_CFG_STRING = 3,   // free text
  NE_CFG_ENUM = 4,     // one of `choices` ("a|b|c")
  NE_CFG_INTLIST = 5,  // comma-separated integers, each range-checked ("" is the empty list)
} ne_cfg_type;

// One schema entry. Schema tables are static const data, one per module (src/config/config_schema.c).
typedef struct ne_config_key {
  const char* section;        // e.g. "ga"
  const char* key;            // e.g. "population"
  ne_cfg_type type;           // value type
  const char* default_value;  // text form of the default
  double min, max;            // inclusive range for INT/FLOAT/INTLIST (min > max: unchecked)
  const char* choices;        // "a|b|c" for ENUM; NULL otherwise
  const char* help;           // one line for `--help` and error messages
} ne_config_key;

typedef struct ne_config ne_config;

// The first line ne_config_format writes; it marks a resolved (complete) config.
#define NE_CONFIG_RESOLVED_HEADER "# neuroevo resolved config"

// Creates a config holding every default. Caller frees with ne_config_destroy. NULL on OOM.
ne_config* ne_config_create(void);

// Frees the config. Nullable: cfg.
void ne_config_destroy(ne_config* cfg);

// Deep copy; caller frees with ne_config_destroy. NULL on OOM.
ne_config* ne_config_clone(const ne_config* cfg);

// Applies an INI file over the current values. `;` and `#` start a comment at the start of a line or
// after a blank; a key set twice in one file is an error naming both lines. Errors: "FILE:LINE: ..."
// in errstr. Nullable: errstr.
int ne_config_load_file(ne_config* cfg, const char* path, char* errstr);

// Config inheritance: a file (or text) whose [run] section has `base = NAME` starts from that
// config (NAME is a config name or an .ini path, looked up next to the file first, see
// ne_config_find) and changes what it sets itself; a base may have a base (at most 8 in a chain).
// The resolved config has no `base` key: it holds every value.

// Applies INI text; `name` stands for the file in messages and is where a base is looked up first.
// Nullable: errstr.
// A resolved config (text that ne_config_format wrote: it starts with NE_CONFIG_RESOLVED_HEADER) is
// complete by construction, so a key it lacks did not exist when it was written: such keys take
// their legacy value where they have one (the value in force before them), so that a run directory made by an older build
// resumes (and evaluates) with the behaviour it started with. Other text leaves them at the default.
int ne_config_load_string(ne_config* cfg, const char* text, const char* name, char* errstr);

// Applies one `section.key=value` override; `origin` names it in messages (e.g. "command line").
// A key that an earlier override set is an error naming both (NE_EINVAL); a bare `key=value`
// gets the section.key it most likely means in its message.
// Overriding run.algorithm switches algorithms: the sections of other algorithms that files set go
// back to their defaults and a line saying so is added to ne_config_notes (their values set by
// overrides stay, and ne_config_validate reports the conflict). Nullable: origin, errstr.
int ne_config_override(ne_config* cfg, const char* assignment, const char* origin, char* errstr);

// What the inputs set that is ignored, and why: "" or lines ending in '\n' (owned by cfg, valid
// until the next change). Callers print them as notes.
const char* ne_config_notes(const ne_config* cfg);

// Sets one value from text after validating it. Nullable: origin, errstr.
int ne_config_set(ne_config* cfg, const char* section, const char* key, const char* value, const char* origin,
                  char* errstr);

// Cross-key checks after all inputs are applied (e.g. a section for another algorithm than
// run.algorithm, truncation > population). Nullable: errstr.
int ne_config_validate(const ne_config* cfg, char* errstr);

// Typed reads. The (section, key) pair must exist in the schema with that type (asserted).
int64_t ne_config_int(const ne_config* cfg, const char* section, const char* key);
double ne_config_float(const ne_config* cfg, const char* section, const char* key);
int ne_config_bool(const ne_config* cfg, const char* section, const char* key);
const char* ne_config_str(const ne_config* cfg, const char* section, const char* key);
// Writes up to max list items into out; returns the list length.
int ne_config_intlist(const ne_config* cfg, const char* section, const char* key, int* out, int max);

// The files applied by ne_config_load_file, bases first: "path\n" each ("" when none). Owned by
// cfg, valid until the next load.
const char* ne_config_sources(const ne_config* cfg);

// The canonical text of any key's value (what config.ini holds), or NULL for a key the schema
// lacks. Owned by cfg, valid until the key changes.
const char* ne_config_text(const ne_config* cfg, const char* section, const char* key);

// The override that set the key, as it was given ("es.lr=0.01"), or NULL when no override did.
// Owned by cfg, valid until the key changes.
const char* ne_config_assignment(const ne_config* cfg, const char* section, const char* key);

// The path of config `name` into path (size bytes): a path (it has a '/' or ends in .ini) as
// given or next to `from`; a name as NAME.ini in from's directory, each directory of
// $NEUROEVO_CONFIG_PATH (':'-separated), ./configs and this source tree's configs/, in that
// order. NE_ENOTFOUND names the nearest config name when there is a plausible one. Nullable: from
// (a file whose neighbours are searched first), errstr.
int ne_config_find(const char* name, const char* from, char* path, size_t size, char* errstr);

// The names of every named config the search of ne_config_find sees, sorted, space-separated,
// into buf (size bytes; cut when too long). Returns how many there are.
int ne_config_names(char* buf, size_t size);

// 1 if the key's value came from a file or an override rather than the default.
int ne_config_is_set(const ne_config* cfg, const char* section, const char* key);

// The resolved config as INI text (every key, defaults included); caller frees with ne_free.
char* ne_config_format(const ne_config* cfg);

// The reference of every key of `section` (NULL: of every section, in schema order) as Markdown:
// per section a heading, its purpose, the algorithms that use it and a table of its keys (value
// form, default, meaning). `neuroevo config` prints it; docs/configuration.md holds it. Caller frees
// with ne_free; NULL with errstr set for an unknown section (naming the nearest) or on OOM.
// Nullable: section, errstr.
char* ne_config_reference(const char* section, char* errstr);

// Writes ne_config_format atomically (temp, fsync, rename), with a "# set by ..." comment above each
// value that an override or the program set (e.g. "# set by command line: es.lr=0.01"). Nullable:
// errstr.
int ne_config_write_file(const ne_config* cfg, const char* path, char* errstr);

// The schema: all keys, in order. Count via the second function.
const ne_config_key* ne_config_schema(void);
int ne_config_schema_count(void);

#ifdef __cplusplus
}
#endif
#endif
