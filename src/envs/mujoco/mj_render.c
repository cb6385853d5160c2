// SPDX-License-Identifier: MIT
// The MuJoCo family's render hook: MuJoCo's own renderer (mjv_updateScene + mjr_render into its
// offscreen framebuffer) in a headless OpenGL context. The context comes from EGL or OSMesa,
// dlopen'ed at run time so that neither is a link-time dependency; MUJOCO_GL chooses as in
// MuJoCo's Python package ("egl" or "osmesa"; unset: EGL, then OSMesa if EGL cannot start).
// MuJoCo's GL loader finds the backend's *GetProcAddress through the global symbol scope, hence
// RTLD_GLOBAL. One renderer (context, scene, a private model copy with a large enough offscreen
// buffer, a shadow map sized to the frame) per render slot, used from one thread; frames cost a few
// ms on a GPU (EGL), ~27 ms at 400 x 300 in software (OSMesa), far from any hot loop.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/mujoco/mujoco_int.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

// the few EGL / OSMesa / GL constants used here (their headers are not needed to build)
#define NE_EGL_DEFAULT_DISPLAY ((void*)0)
#define NE_EGL_NO_SURFACE ((void*)0)
#define NE_EGL_NO_CONTEXT ((void*)0)
#define NE_EGL_NONE 0x3038
#define NE_EGL_SURFACE_TYPE 0x3033
#define NE_EGL_PBUFFER_BIT 0x0001
#define NE_EGL_RED_SIZE 0x3024
#define NE_EGL_GREEN_SIZE 0x3023
#define NE_EGL_BLUE_SIZE 0x3022
#define NE_EGL_ALPHA_SIZE 0x3021
#define NE_EGL_DEPTH_SIZE 0x3025
#define NE_EGL_STENCIL_SIZE 0x3026
#define NE_EGL_RENDERABLE_TYPE 0x3040
#define NE_EGL_OPENGL_BIT 0x0008
#define NE_EGL_OPENGL_API 0x30A2
#define NE_EGL_PLATFORM_DEVICE_EXT 0x313F
#define NE_EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#define NE_GL_RGBA 0x1908
#define NE_GL_UNSIGNED_BYTE 0x1401
#define NE_GL_VERSION 0x1F02

enum { BACKEND_EGL = 1, BACKEND_OSMESA = 2 };

// the backend's entry points, looked up with dlsym
typedef struct gl_api {
  void* lib;  // dlopen handle
  // EGL
  void* (*eglGetDisplay)(void*);
  void* (*eglGetProcAddress)(const char*);
  unsigned (*eglInitialize)(void*, int*, int*);
  unsigned (*eglChooseConfig)(void*, const int*, void**, int, int*);
  unsigned (*eglBindAPI)(unsigned);
  void* (*eglCreateContext)(void*, void*, void*, const int*);
  unsigned (*eglMakeCurrent)(void*, void*, void*, void*);
  unsigned (*eglDestroyContext)(void*, void*);
  unsigned (*eglTerminate)(void*);
  // OSMesa
  void* (*OSMesaCreateContextExt)(unsigned, int, int, int, void*);
  unsigned char (*OSMesaMakeCurrent)(void*, void*, unsigned, int, int);
  void (*OSMesaDestroyContext)(void*);
  void* (*OSMesaGetProcAddress)(const char*);
} gl_api;

// one renderer, kept in the caller's render slot
typedef struct mj_renderer {
  int backend;           // BACKEND_EGL or BACKEND_OSMESA
  gl_api gl;             // its functions
  void* display;         // EGL display
  void* context;         // EGL or OSMesa context
  unsigned char* osbuf;  // (offheight, offwidth, 4) OSMesa's default framebuffer, owned
  mjModel* m;            // private copy of the model with offwidth/offheight raised, owned
  mjvScene scn;          // the abstract scene
  mjvCamera cam;         // the camera (tracking the torso for locomotion tasks)
  mjvOption opt;         // visualisation options (defaults)
  mjrContext con;        // MuJoCo's GPU-side resources
  int started;           // 1 once the backend's context is current (MuJoCo may use it)
  int made;              // 1 once scn and con exist
} mj_renderer;

// looks name up in r->gl.lib; 0 if missing
static int sym(mj_renderer* r, void* fn_slot, const char* name) {
  void* p = dlsym(r->gl.lib, name);
  memcpy(fn_slot, &p, sizeof p);  // object-to-function pointer without a cast warning
  return p != NULL;
}

// initialises the first EGL display that works: a GPU device (EGL_EXT_platform_device, as MuJoCo's
// Python egl backend), Mesa's surfaceless platform (software rendering), the default display
static int egl_display(mj_renderer* r) {
  void* (*get_platform_display)(unsigned, void*, const int*) = NULL;
  unsigned (*query_devices)(int, void**, int*) = NULL;
  void* p = r->gl.eglGetProcAddress("eglGetPlatformDisplayEXT");
  memcpy(&get_platform_display, &p, sizeof p);
  p = r->gl.eglGetProcAddress("eglQueryDevicesEXT");
  memcpy(&query_devices, &p, sizeof p);
  void* candidates[3] = {NULL, NULL, NULL};
  void* device = NULL;
  int n_devices = 0;
  if (get_platform_display && query_devices && query_devices(1, &device, &n_devices) && n_devices > 0)
    candidates[0] = get_platform_display(NE_EGL_PLATFORM_DEVICE_EXT, device, NULL);
  if (get_platform_display)
    candidates[1] = get_platform_display(NE_EGL_PLATFORM_SURFACELESS_MESA, NE_EGL_DEFAULT_DISPLAY, NULL);
  candidates[2] = r->gl.eglGetDisplay(NE_EGL_DEFAULT_DISPLAY);
  for (int i = 0; i < 3; i++) {
    int major = 0, minor = 0;
    if (candidates[i] && r->gl.eglInitialize(candidates[i], &major, &minor)) {
      r->display = candidates[i];
      return 1;
    }
  }
  return 0;
}

// EGL: a surfaceless desktop-GL context; 0 or NE_EUNSUPPORTED
static int start_egl(mj_renderer* r, char* errstr) {
  // RTLD_LOCAL while probing: a failed EGL must not stay visible to MuJoCo's GL loader
  r->gl.lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!r->gl.lib)
    return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: cannot load libEGL.so.1 (apt-get install libegl1)");
  int ok = sym(r, &r->gl.eglGetDisplay, "eglGetDisplay") && sym(r, &r->gl.eglGetProcAddress, "eglGetProcAddress") &&
      sym(r, &r->gl.eglInitialize, "eglInitialize") && sym(r, &r->gl.eglChooseConfig, "eglChooseConfig") &&
      sym(r, &r->gl.eglBindAPI, "eglBindAPI") && sym(r, &r->gl.eglCreateContext, "eglCreateContext") &&
      sym(r, &r->gl.eglMakeCurrent, "eglMakeCurrent") && sym(r, &r->gl.eglDestroyContext, "eglDestroyContext") &&
      sym(r, &r->gl.eglTerminate, "eglTerminate");
  if (!ok) return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: libEGL.so.1 lacks a core function");
  if (!egl_display(r)) return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: no display could be initialised");
  // clang-format off
  static const int attribs[] = {NE_EGL_RED_SIZE,     8, NE_EGL_GREEN_SIZE,   8, NE_EGL_BLUE_SIZE, 8,
                                NE_EGL_ALPHA_SIZE,   8, NE_EGL_DEPTH_SIZE,  24, NE_EGL_STENCIL_SIZE, 8,
                                NE_EGL_SURFACE_TYPE, NE_EGL_PBUFFER_BIT, NE_EGL_RENDERABLE_TYPE, NE_EGL_OPENGL_BIT,
                                NE_EGL_NONE};
  // clang-format on
  void* config = NULL;
  int n = 0;
  if (!r->gl.eglChooseConfig(r->display, attribs, &config, 1, &n) || n < 1 || !r->gl.eglBindAPI(NE_EGL_OPENGL_API))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: no RGBA8/depth24 desktop OpenGL config");
  r->context = r->gl.eglCreateContext(r->display, config, NE_EGL_NO_CONTEXT, NULL);
  if (!r->context || !r->gl.eglMakeCurrent(r->display, NE_EGL_NO_SURFACE, NE_EGL_NO_SURFACE, r->context))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: cannot make a surfaceless context current");
  // it works: now let MuJoCo's loader see eglGetProcAddress
  if (!dlopen("libEGL.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "EGL: cannot make libEGL's symbols global");
  return 0;
}

// OSMesa: Mesa's software renderer into a buffer of ours; 0 or NE_EUNSUPPORTED / NE_ENOMEM
static int start_osmesa(mj_renderer* r, int width, int height, char* errstr) {
  r->gl.lib = dlopen("libOSMesa.so.8", RTLD_NOW | RTLD_GLOBAL);
  if (!r->gl.lib) r->gl.lib = dlopen("libOSMesa.so.6", RTLD_NOW | RTLD_GLOBAL);
  if (!r->gl.lib)
    return ne__set_error(errstr, NE_EUNSUPPORTED, "OSMesa: cannot load libOSMesa.so.8 (apt-get install libosmesa6)");
  int ok = sym(r, &r->gl.OSMesaCreateContextExt, "OSMesaCreateContextExt") &&
      sym(r, &r->gl.OSMesaMakeCurrent, "OSMesaMakeCurrent") &&
      sym(r, &r->gl.OSMesaDestroyContext, "OSMesaDestroyContext") &&
      sym(r, &r->gl.OSMesaGetProcAddress, "OSMesaGetProcAddress");
  if (!ok) return ne__set_error(errstr, NE_EUNSUPPORTED, "OSMesa: libOSMesa lacks a core function");
  r->context = r->gl.OSMesaCreateContextExt(NE_GL_RGBA, 24, 8, 0, NULL);
  if (!r->context) return ne__set_error(errstr, NE_EUNSUPPORTED, "OSMesa: cannot create a context");
  r->osbuf = ne_malloc((size_t)width * (size_t)height * 4);
  if (!r->osbuf) return ne__set_error(errstr, NE_ENOMEM, "OSMesa: out of memory for a %dx%d buffer", width, height);
  if (!r->gl.OSMesaMakeCurrent(r->context, r->osbuf, NE_GL_UNSIGNED_BYTE, width, height))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "OSMesa: cannot make the context current");
  return 0;
}

// tears down whichever backend start_* got to
static void stop_backend(mj_renderer* r) {
  if (r->backend == BACKEND_EGL && r->display) {
    if (r->context) {
      r->gl.eglMakeCurrent(r->display, NE_EGL_NO_SURFACE, NE_EGL_NO_SURFACE, NE_EGL_NO_CONTEXT);
      r->gl.eglDestroyContext(r->display, r->context);
    }
    r->gl.eglTerminate(r->display);
  }
  if (r->backend == BACKEND_OSMESA && r->context) {
    r->gl.OSMesaMakeCurrent(NULL, NULL, 0, 0, 0);  // release the framebuffer before the context
    r->gl.OSMesaDestroyContext(r->context);
  }
  ne_free(r->osbuf);
  // a backend that never started is unloaded (MuJoCo's loader must not find it); a used one stays,
  // as MuJoCo's GL loader keeps pointers into it
  if (r->gl.lib && !r->started) dlclose(r->gl.lib);
  memset(&r->gl, 0, sizeof r->gl);
  r->display = r->context = NULL;
  r->osbuf = NULL;
  r->backend = 0;
}

// MuJoCo's mjr_makeContext reports a GL it cannot load through mju_error, whose default handler
// exits the process; so the context is first checked here the way MuJoCo's loader will use it:
// glGetString through the backend's GetProcAddress, and a version string from the current context
static int check_gl(mj_renderer* r, char* errstr) {
  void* p =
      r->backend == BACKEND_EGL ? r->gl.eglGetProcAddress("glGetString") : r->gl.OSMesaGetProcAddress("glGetString");
  const unsigned char* (*get_string)(unsigned) = NULL;
  memcpy(&get_string, &p, sizeof p);
  const unsigned char* version = get_string ? get_string(NE_GL_VERSION) : NULL;
  if (!version || version[0] < '1' || version[0] > '9')
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: the OpenGL context does not answer (no GL version)",
                         r->backend == BACKEND_EGL ? "EGL" : "OSMesa");
  return 0;
}

// starts the backend MUJOCO_GL names (unset: EGL, then OSMesa)
static int start_backend(mj_renderer* r, int width, int height, char* errstr) {
  const char* want = getenv("MUJOCO_GL");
  if (want && want[0] && strcmp(want, "egl") != 0 && strcmp(want, "osmesa") != 0)
    return ne__set_error(errstr, NE_EUNSUPPORTED, "MUJOCO_GL=%s: neuroevo renders headless only (egl or osmesa)", want);
  int rc = NE_EUNSUPPORTED;
  if (!want || !want[0] || strcmp(want, "egl") == 0) {
    r->backend = BACKEND_EGL;
    rc = start_egl(r, errstr);
    if (!rc) rc = check_gl(r, errstr);
    if (rc) stop_backend(r);
  }
  if (rc && (!want || !want[0] || strcmp(want, "osmesa") == 0)) {
    r->backend = BACKEND_OSMESA;
    rc = start_osmesa(r, width, height, errstr);
    if (!rc) rc = check_gl(r, errstr);
    if (rc) stop_backend(r);
  }
  return rc;
}

// Gymnasium's default cameras (DEFAULT_CAMERA_CONFIG of each v5 file), roughly: tracking the torso
// for the walkers, a fixed view of the cart or the arena otherwise
static void camera_for(const ne_mj_spec* s, mjvCamera* cam) {
  const char* id = s->task->id;
  mjv_defaultCamera(cam);
  cam->azimuth = 90.0;
  cam->elevation = -20.0;
  if (strcmp(id, "InvertedPendulum-v5") == 0 || strcmp(id, "InvertedDoublePendulum-v5") == 0) {
    int dbl = id[8] == 'D';
    cam->type = mjCAMERA_FREE;
    cam->lookat[2] = dbl ? 0.6 : 0.1;
    cam->distance = dbl ? 2.6 : 2.04;
    cam->elevation = -5.0;
    return;
  }
  if (strcmp(id, "Reacher-v5") == 0) {
    cam->type = mjCAMERA_FREE;
    cam->distance = 0.9;
    cam->elevation = -90.0;
    return;
  }
  cam->type = mjCAMERA_TRACKING;
  cam->trackbodyid = 1;
  cam->distance = strcmp(id, "Hopper-v5") == 0 ? 3.0 : 4.0;
}

// builds a renderer for frames of width x height
static int renderer_new(const ne_mj_spec* s, int width, int height, mj_renderer** out, char* errstr) {
  mj_renderer* r = ne_calloc(1, sizeof *r);
  if (!r) return ne__set_error(errstr, NE_ENOMEM, "out of memory for a renderer");
  // a private model copy whose offscreen buffer fits the frame (the shared model stays read-only)
  r->m = mj_copyModel(NULL, s->m);
  if (!r->m) {
    ne_free(r);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory copying the model");
  }
  // the shadow map: Gymnasium's models ask 4096 x 4096, sized for full-screen windows; drawing it
  // is 3/4 of a software (OSMesa) frame at 400 x 300 (51 ms of 68). Twice the frame's longer side,
  // at least 1024, looks the same at the frame's size and halves the frame's cost.
  int shadow = 1024;
  while (shadow < 2 * (width > height ? width : height) && shadow < r->m->vis.quality.shadowsize) shadow *= 2;
  if (shadow < r->m->vis.quality.shadowsize) r->m->vis.quality.shadowsize = shadow;
  if (r->m->vis.global.offwidth < width) r->m->vis.global.offwidth = width;
  if (r->m->vis.global.offheight < height) r->m->vis.global.offheight = height;
  int rc = start_backend(r, r->m->vis.global.offwidth, r->m->vis.global.offheight, errstr);
  if (rc) {
    mj_deleteModel(r->m);
    ne_free(r);
    return rc;
  }
  r->started = 1;
  mjv_defaultScene(&r->scn);
  mjv_makeScene(r->m, &r->scn, 2000);
  mjv_defaultOption(&r->opt);
  mjr_defaultContext(&r->con);
  mjr_makeContext(r->m, &r->con, mjFONTSCALE_100);
  mjr_setBuffer(mjFB_OFFSCREEN, &r->con);
  camera_for(s, &r->cam);
  r->made = 1;
  *out = r;
  return 0;
}

void ne__mj_render_free(const ne_env_spec* spec, void* ctx) {
  (void)spec;
  mj_renderer* r = ctx;
  if (!r) return;
  if (r->made) {
    mjr_freeContext(&r->con);
    mjv_freeScene(&r->scn);
  }
  stop_backend(r);
  mj_deleteModel(r->m);
  ne_free(r);
}

int ne__mj_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                  char* errstr) {
  const ne_mj_spec* s = spec->data;
  if (width < 1 || height < 1 || width > 4096 || height > 4096)
    return ne__set_error(errstr, NE_EINVAL, "%s: frame size %dx%d outside 1..4096", spec->id, width, height);
  if (!*ctx) {
    int rc = renderer_new(s, width, height, (mj_renderer**)ctx, errstr);
    if (rc) return rc;
  }
  mj_renderer* r = *ctx;
  if (width > r->m->vis.global.offwidth || height > r->m->vis.global.offheight)
    return ne__set_error(errstr, NE_EINVAL, "%s: frame size changed to %dx%d after the first frame", spec->id, width,
                         height);
  // mjv_updateScene only uses d's arena for scratch; the physics state is read, not changed
  mjData* d = ((const ne_mj_state*)impl)->d;
  mjv_updateScene(r->m, d, &r->opt, NULL, &r->cam, mjCAT_ALL, &r->scn);
  mjrRect viewport = {0, 0, width, height};
  mjr_render(viewport, &r->scn, &r->con);
  mjr_readPixels(rgb, NULL, viewport, &r->con);
  // OpenGL's rows run bottom-up; frames are top row first
  size_t row = (size_t)width * 3;
  for (int y = 0; y < height / 2; y++) {
    unsigned char* a = rgb + (size_t)y * row;
    unsigned char* b = rgb + (size_t)(height - 1 - y) * row;
    for (size_t i = 0; i < row; i++) {
      unsigned char t = a[i];
      a[i] = b[i];
      b[i] = t;
    }
  }
  return 0;
}
