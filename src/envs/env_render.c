// SPDX-License-Identifier: MIT
// Frames of an env state (env.h's ne_env_render): checks the arguments and hands the state to its
// family's render hook (MuJoCo's offscreen renderer, the Box2D, classic-control and maze drawings),
// and behaviour characterizations drawn over a frame (the maze's archive of final positions). For
// humans looking at results, never on a training path.
#include "core/util.h"  // ne__set_error
#include "neuroevo/env.h"
#include "neuroevo/error.h"

int ne_env_can_render(const ne_env_spec* spec) { return spec->hooks && spec->hooks->render; }

int ne_env_render(const ne_env_spec* spec, const ne_env_state* state, void** ctx, unsigned char* rgb, int width,
                  int height, char* errstr) {
  if (!spec || !state || !ctx || !rgb || state->spec != spec) return ne__set_error(errstr, NE_EINVAL, "bad arguments");
  if (width < 1 || height < 1 || width > NE_ENV_MAX_RENDER_SIDE || height > NE_ENV_MAX_RENDER_SIDE)
    return ne__set_error(errstr, NE_EINVAL, "frame size %dx%d outside 1..%d", width, height, NE_ENV_MAX_RENDER_SIDE);
  if (!ne_env_can_render(spec))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no drawing for this environment", spec->id);
  return spec->hooks->render(spec, state->impl, ctx, rgb, width, height, errstr);
}

void ne_env_render_free(const ne_env_spec* spec, void* ctx) {
  if (ctx && spec && spec->hooks && spec->hooks->render_free) spec->hooks->render_free(spec, ctx);
}

int ne_env_can_draw_behaviours(const ne_env_spec* spec) { return spec->hooks && spec->hooks->draw_behaviours; }

int ne_env_draw_behaviours(const ne_env_spec* spec, const float* points, int n, int dim, unsigned char* rgb, int width,
                           int height, char* errstr) {
  if (!spec || (!points && n > 0) || n < 0 || !rgb || width < 1 || height < 1)
    return ne__set_error(errstr, NE_EINVAL, "bad arguments");
  if (!ne_env_can_draw_behaviours(spec))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no drawing of behaviours for this environment", spec->id);
  return spec->hooks->draw_behaviours(spec, points, n, dim, rgb, width, height, errstr);
}
