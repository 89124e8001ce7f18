/* What the two libjpeg shims (jpeg_coef.c, decode; jpeg_enc.c, encode) share: an error manager
 * that longjmps out of libjpeg with its message copied out, nothing printed, and its warnings
 * treated as errors (a damaged file goes to the CPU decoder, whose policy covers it; an encode
 * has nothing to recover from). */
#ifndef TEXELFLOW_JPEG_SHIM_H
#define TEXELFLOW_JPEG_SHIM_H

#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include "jpeglib.h"

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char *message;
  size_t message_len;
} tf_error;

static void tf_error_exit(j_common_ptr cinfo) {
  tf_error *e = (tf_error *)cinfo->err;
  if (e->message && e->message_len > 0) {
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    strncpy(e->message, text, e->message_len - 1);
    e->message[e->message_len - 1] = '\0';
  }
  longjmp(e->jump, 1);
}

static void tf_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0) tf_error_exit(cinfo);
}

#endif
