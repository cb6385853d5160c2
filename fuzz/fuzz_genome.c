// SPDX-License-Identifier: MIT
// Fuzz target: the genome text format (ne_genome_parse). An accepted genome must survive
// ne_genome_format + ne_genome_parse unchanged (same seeds, same sigma bits, same header), since
// best.genome is what `neuroevo eval` replays.
#include "fuzz.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = fuzz_cstr(data, size);
  char err[NE_ERRSTR_LEN];
  ne_genome g, back;
  ne_genome_init(&g);
  ne_genome_init(&back);
  static ne_genome_header h, hb;  // ~10 KB each: off the stack
  memset(&h, 0, sizeof h);
  memset(&hb, 0, sizeof hb);
  if (ne_genome_parse(text, "fuzz.genome", &g, &h, err) == 0) {
    // round trip through the text form
    char* out = ne_genome_format(&g, &h);
    if (!out) abort();
    int rc = ne_genome_parse(out, "formatted", &back, &hb, err);
    FUZZ_CHECK(rc == 0, "formatted genome does not parse: %s\n%s", err, out);
    FUZZ_CHECK(back.n_seeds == g.n_seeds && memcmp(back.seeds, g.seeds, g.n_seeds * sizeof *g.seeds) == 0,
               "seeds change in a round trip");
    FUZZ_CHECK(memcmp(&back.sigma, &g.sigma, sizeof g.sigma) == 0, "sigma %.9g becomes %.9g", (double)g.sigma,
               (double)back.sigma);
    FUZZ_CHECK(hb.n == h.n, "header has %d fields, %d after a round trip", h.n, hb.n);
    for (int i = 0; i < h.n; i++)
      FUZZ_CHECK(strcmp(h.key[i], hb.key[i]) == 0 && strcmp(h.value[i], hb.value[i]) == 0,
                 "header field '%s = %s' becomes '%s = %s'", h.key[i], h.value[i], hb.key[i], hb.value[i]);
    ne_free(out);
  }
  ne_genome_free(&back);
  ne_genome_free(&g);
  ne_free(text);
  return 0;
}
