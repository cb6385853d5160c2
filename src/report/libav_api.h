// SPDX-License-Identifier: MIT
// FFmpeg's functions that the MP4 writer (video_mp4.c) calls, loaded with dlopen at its first use.
// Linking libavformat and friends made every process that loads libneuroevo map ~130 shared
// libraries (codecs, TLS, GLib, ...) and run their constructors: ~28 ms of CPU before main() for
// every `neuroevo` command, test and Redis worker, for a feature only `neuroevo render --out x.mp4`
// uses. The headers still describe the ABI: the SONAMEs opened are those of the headers' major
// versions. Only built with NE_HAVE_LIBAV.
#ifndef NE_REPORT_LIBAV_API_H
#define NE_REPORT_LIBAV_API_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

// Every function the writer uses: X(name) expands once per function.
// clang-format off
#define NE_LIBAV_FUNCTIONS(X) \
  X(av_frame_alloc) \
  X(av_frame_free) \
  X(av_frame_get_buffer) \
  X(av_frame_make_writable) \
  X(av_log_set_level) \
  X(av_opt_set) \
  X(av_strerror) \
  X(av_packet_alloc) \
  X(av_packet_free) \
  X(av_packet_rescale_ts) \
  X(avcodec_alloc_context3) \
  X(avcodec_find_encoder) \
  X(avcodec_find_encoder_by_name) \
  X(avcodec_free_context) \
  X(avcodec_open2) \
  X(avcodec_parameters_from_context) \
  X(avcodec_receive_packet) \
  X(avcodec_send_frame) \
  X(av_interleaved_write_frame) \
  X(av_write_trailer) \
  X(avformat_alloc_output_context2) \
  X(avformat_free_context) \
  X(avformat_new_stream) \
  X(avformat_write_header) \
  X(avio_closep) \
  X(avio_open) \
  X(sws_getContext) \
  X(sws_scale) \
  X(sws_freeContext)
// clang-format on

// One pointer per function, each of the function's own type.
typedef struct ne_libav_api {
#define NE_LIBAV_POINTER(name) __typeof__(name)* name;
  NE_LIBAV_FUNCTIONS(NE_LIBAV_POINTER)
#undef NE_LIBAV_POINTER
} ne_libav_api;

// The functions, loaded on the first call (thread-safe; the libraries then stay loaded for the
// life of the process, owned by nobody; libav's own logging is set to errors only). NULL with
// errstr (may be NULL) saying which library or function is missing and which Debian packages
// provide them.
const ne_libav_api* ne__libav(char* errstr);

#endif
