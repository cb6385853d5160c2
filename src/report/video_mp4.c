// SPDX-License-Identifier: MIT
// MP4 videos of agents (render.h's ne_mp4): RGB frames converted to yuv420p by libswscale, encoded
// with H.264 (libx264 inside Debian's libavcodec) or, where that encoder is missing, MPEG-4 part 2,
// and muxed by libavformat. One frame in, zero or more packets out; close drains the encoder and
// writes the trailer. For humans looking at results, never on a training path. Built only with
// FFmpeg's libraries (NE_HAVE_LIBAV, cmake/physics.cmake); otherwise every call refuses clearly.
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/render.h"

#define MAX_SIDE 4096

#ifdef NE_HAVE_LIBAV
#include "report/libav_api.h"  // FFmpeg's functions, loaded at the first open

struct ne_mp4 {
  AVFormatContext* fmt;    // the output file (muxer + its AVIOContext)
  AVStream* stream;        // the one video stream
  AVCodecContext* enc;     // the encoder
  struct SwsContext* sws;  // RGB24 -> yuv420p
  AVFrame* frame;          // the yuv420p frame handed to the encoder
  AVPacket* pkt;           // reused for every packet out of the encoder
  const ne_libav_api* av;  // FFmpeg's functions
  int64_t pts;             // frames sent so far (time base 1/fps)
  int header_written;      // 1 once avformat_write_header succeeded (the trailer is then due)
  char path[512];          // for messages
};

// "path: what: libav's text for code"
static int av_fail(const ne_mp4* v, char* errstr, int code, const char* what) {
  char text[AV_ERROR_MAX_STRING_SIZE] = "";
  v->av->av_strerror(code, text, sizeof text);
  return ne__set_error(errstr, NE_EIO, "%s: %s: %s", v->path, what, text);
}

int ne_mp4_available(void) { return ne__libav(NULL) != NULL; }

// H.264 when libavcodec has libx264, else MPEG-4 part 2 (always built into libavcodec)
static const AVCodec* pick_encoder(const ne_libav_api* L) {
  const AVCodec* c = L->avcodec_find_encoder_by_name("libx264");
  return c ? c : L->avcodec_find_encoder(AV_CODEC_ID_MPEG4);
}

// the encoder: yuv420p at fps, one thread (the bytes of a video then do not depend on the machine)
static int open_encoder(ne_mp4* v, const AVCodec* codec, int width, int height, int fps, char* errstr) {
  v->enc = v->av->avcodec_alloc_context3(codec);
  if (!v->enc) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for an encoder", v->path);
  v->enc->width = width;
  v->enc->height = height;
  v->enc->pix_fmt = AV_PIX_FMT_YUV420P;
  v->enc->time_base = (AVRational){1, fps};
  v->enc->framerate = (AVRational){fps, 1};
  v->enc->gop_size = 2 * fps;
  v->enc->thread_count = 1;
  if (codec->id == AV_CODEC_ID_H264) {
    v->av->av_opt_set(v->enc->priv_data, "preset", "fast", 0);
    v->av->av_opt_set(v->enc->priv_data, "crf", "23", 0);
  } else {
    v->enc->bit_rate = (int64_t)width * height * fps / 4;  // ~0.25 bit per pixel: sharp for line drawings
  }
  // MP4 keeps the codec's parameter sets in the container header
  if (v->fmt->oformat->flags & AVFMT_GLOBALHEADER) v->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  int rc = v->av->avcodec_open2(v->enc, codec, NULL);
  if (rc < 0) return av_fail(v, errstr, rc, codec->name);
  rc = v->av->avcodec_parameters_from_context(v->stream->codecpar, v->enc);
  if (rc < 0) return av_fail(v, errstr, rc, "stream parameters");
  v->stream->time_base = v->enc->time_base;
  return 0;
}

// the converter and the frame and packet reused for every frame
static int open_buffers(ne_mp4* v, int width, int height, char* errstr) {
  v->sws = v->av->sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL,
                                 NULL, NULL);
  v->frame = v->av->av_frame_alloc();
  v->pkt = v->av->av_packet_alloc();
  if (!v->sws || !v->frame || !v->pkt) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", v->path);
  v->frame->format = AV_PIX_FMT_YUV420P;
  v->frame->width = width;
  v->frame->height = height;
  int rc = v->av->av_frame_get_buffer(v->frame, 0);
  return rc < 0 ? av_fail(v, errstr, rc, "frame buffer") : 0;
}

// muxer, stream, encoder, buffers, the file and its header
static int mp4_start(ne_mp4* v, int width, int height, int fps, char* errstr) {
  int rc = v->av->avformat_alloc_output_context2(&v->fmt, NULL, "mp4", v->path);
  if (rc < 0 || !v->fmt) return av_fail(v, errstr, rc < 0 ? rc : AVERROR(ENOMEM), "MP4 muxer");
  const AVCodec* codec = pick_encoder(v->av);
  if (!codec)
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: libavcodec has neither H.264 nor MPEG-4 encoders", v->path);
  v->stream = v->av->avformat_new_stream(v->fmt, NULL);
  if (!v->stream) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for a stream", v->path);
  if ((rc = open_encoder(v, codec, width, height, fps, errstr)) || (rc = open_buffers(v, width, height, errstr)))
    return rc;
  rc = v->av->avio_open(&v->fmt->pb, v->path, AVIO_FLAG_WRITE);
  if (rc < 0) return av_fail(v, errstr, rc, "cannot create");
  rc = v->av->avformat_write_header(v->fmt, NULL);
  if (rc < 0) return av_fail(v, errstr, rc, "writing the header");
  v->header_written = 1;
  return 0;
}

int ne_mp4_open(const char* path, int width, int height, int fps, ne_mp4** out, char* errstr) {
  *out = NULL;
  if (width < 2 || height < 2 || width > MAX_SIDE || height > MAX_SIDE)
    return ne__set_error(errstr, NE_EINVAL, "%s: frame size %dx%d outside 2..%d", path, width, height, MAX_SIDE);
  // yuv420p keeps one chroma sample per 2x2 block
  if (width % 2 || height % 2)
    return ne__set_error(errstr, NE_EINVAL, "%s: MP4 (yuv420p) needs an even width and height, got %dx%d (e.g. %dx%d)",
                         path, width, height, width & ~1, height & ~1);
  if (fps < 1 || fps > 1000) return ne__set_error(errstr, NE_EINVAL, "%s: fps %d outside 1..1000", path, fps);
  char why[NE_ERRSTR_LEN];
  const ne_libav_api* av = ne__libav(why);
  if (!av) return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: %s", path, why);
  ne_mp4* v = ne_calloc(1, sizeof *v);
  if (!v) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  v->av = av;
  snprintf(v->path, sizeof v->path, "%s", path);
  int rc = mp4_start(v, width, height, fps, errstr);
  if (rc) {
    // no half-written file is left behind
    int created = v->fmt && v->fmt->pb;
    ne_mp4_close(v, NULL);
    if (created) remove(path);
    return rc;
  }
  *out = v;
  return 0;
}

// hands frame (NULL: end of stream) to the encoder and writes every packet it has ready
static int encode(ne_mp4* v, const AVFrame* frame, char* errstr) {
  int rc = v->av->avcodec_send_frame(v->enc, frame);
  if (rc < 0) return av_fail(v, errstr, rc, "encoding a frame");
  for (;;) {
    rc = v->av->avcodec_receive_packet(v->enc, v->pkt);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return 0;
    if (rc < 0) return av_fail(v, errstr, rc, "encoding a frame");
    // every frame lasts 1/fps: without a duration the muxer gives the last one 0 and its edit list
    // cuts it from playback
    if (v->pkt->duration <= 0) v->pkt->duration = 1;
    v->av->av_packet_rescale_ts(v->pkt, v->enc->time_base, v->stream->time_base);
    v->pkt->stream_index = v->stream->index;
    rc = v->av->av_interleaved_write_frame(v->fmt, v->pkt);  // takes the packet's data, resets pkt
    if (rc < 0) return av_fail(v, errstr, rc, "writing a frame");
  }
}

int ne_mp4_add_frame(ne_mp4* v, const unsigned char* rgb, char* errstr) {
  // the encoder may still hold the previous frame's buffer: write into a fresh one if so
  int rc = v->av->av_frame_make_writable(v->frame);
  if (rc < 0) return av_fail(v, errstr, rc, "frame buffer");
  const uint8_t* src[1] = {rgb};
  const int stride[1] = {3 * v->enc->width};
  v->av->sws_scale(v->sws, src, stride, 0, v->enc->height, v->frame->data, v->frame->linesize);
  v->frame->pts = v->pts++;
  return encode(v, v->frame, errstr);
}

int ne_mp4_close(ne_mp4* v, char* errstr) {
  if (!v) return 0;
  // drain the encoder, then the trailer (the moov atom that makes the file playable)
  int rc = 0;
  if (v->header_written) {
    rc = encode(v, NULL, errstr);
    int trc = v->av->av_write_trailer(v->fmt);
    if (!rc && trc < 0) rc = av_fail(v, errstr, trc, "writing the trailer");
  }
  if (v->fmt && v->fmt->pb) {
    int crc = v->av->avio_closep(&v->fmt->pb);
    if (!rc && crc < 0) rc = av_fail(v, errstr, crc, "closing");
  }
  v->av->avformat_free_context(v->fmt);
  v->av->avcodec_free_context(&v->enc);
  v->av->sws_freeContext(v->sws);
  v->av->av_frame_free(&v->frame);
  v->av->av_packet_free(&v->pkt);
  ne_free(v);
  return rc;
}
#else
// built without FFmpeg's libraries: the writer exists but refuses, naming the fix
struct ne_mp4 {
  int unused;
};

int ne_mp4_available(void) { return 0; }

int ne_mp4_open(const char* path, int width, int height, int fps, ne_mp4** out, char* errstr) {
  (void)width, (void)height, (void)fps;
  *out = NULL;
  return ne__set_error(errstr, NE_EUNSUPPORTED,
                       "%s: built without MP4 support (FFmpeg's libavcodec, libavformat and libswscale were not "
                       "found at configure time: run scripts/install-deps, reconfigure), or write a .gif",
                       path);
}

int ne_mp4_add_frame(ne_mp4* v, const unsigned char* rgb, char* errstr) {
  (void)v, (void)rgb;
  return ne__set_error(errstr, NE_EUNSUPPORTED, "built without MP4 support");
}

int ne_mp4_close(ne_mp4* v, char* errstr) {
  (void)v, (void)errstr;
  return 0;
}
#endif
