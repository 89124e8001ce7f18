/* A JPEG written from quantised DCT coefficients by libjpeg-turbo's entropy encoder
 * (jpeg_write_coefficients), for the GPU-assisted encode of issue 30: colour conversion,
 * downsampling, the forward DCT and quantisation run on the GPU (or the CPU twin); only the
 * Huffman coding (optionally with optimised tables, optionally progressive) and the markers
 * are libjpeg's. The markers are those of a normal libjpeg-turbo encode: SOI, JFIF, DQT, SOF,
 * DHT, SOS. A plain-C interface so that Rust never mirrors libjpeg's structs. Errors longjmp
 * out of libjpeg into a message; nothing here prints. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jpeglib.h"
#include "jpeg_shim.h"
#include "jerror.h"

#define TF_MAX_COMPONENTS 3

/* What the Rust side hands over. Blocks are stored per component in raster order,
 * `blocks_w x blocks_h` blocks of 64 coefficients in natural (row-major, not zig-zag) order,
 * component after component; `blocks_w/h` must be what libjpeg computes from the size and
 * the sampling factors. `quant[t]` is table t in natural order; component c uses table
 * `quant_index[c]`. */
typedef struct {
  int width, height, components;
  int h[TF_MAX_COMPONENTS], v[TF_MAX_COMPONENTS];
  int blocks_w[TF_MAX_COMPONENTS], blocks_h[TF_MAX_COMPONENTS];
  int quant_index[TF_MAX_COMPONENTS];
  unsigned short quant[2][64];
  int optimize, progressive;
} tf_enc_info;

/* Asked for the output once its size is known: `len` bytes to copy it into, or NULL to stop. */
typedef unsigned char *(*tf_out_fn)(void *ctx, size_t len);

/* A growing malloc'd buffer. Not jpeg_mem_dest: after it reallocates, the buffer it owns is
 * private to jdatadst.c, so an error part-way would leak it; this one is freed on every path. */
typedef struct {
  struct jpeg_destination_mgr pub;
  unsigned char *buffer;
  size_t size;
} tf_dest;

static void tf_init_destination(j_compress_ptr cinfo) {
  tf_dest *d = (tf_dest *)cinfo->dest;
  d->pub.next_output_byte = d->buffer;
  d->pub.free_in_buffer = d->size;
}

/* Called with the whole buffer full. */
static boolean tf_empty_output_buffer(j_compress_ptr cinfo) {
  tf_dest *d = (tf_dest *)cinfo->dest;
  size_t used = d->size;
  size_t grown = d->size * 2;
  unsigned char *b = grown > d->size ? (unsigned char *)realloc(d->buffer, grown) : NULL;
  if (!b) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
  d->buffer = b;
  d->size = grown;
  d->pub.next_output_byte = b + used;
  d->pub.free_in_buffer = grown - used;
  return TRUE;
}

static void tf_term_destination(j_compress_ptr cinfo) { (void)cinfo; }

static void tf_enc_message(char *message, size_t message_len, const char *text) {
  if (message && message_len > 0) {
    strncpy(message, text, message_len - 1);
    message[message_len - 1] = '\0';
  }
}

/* Copies the blocks into libjpeg's arrays (a function of its own: nothing it changes lives
 * across the caller's setjmp). */
static void tf_fill(j_compress_ptr cinfo, jvirt_barray_ptr *arrays, const tf_enc_info *info,
                    const short *blocks) {
  for (int c = 0; c < info->components; c++) {
    JDIMENSION bw = (JDIMENSION)info->blocks_w[c];
    for (JDIMENSION row = 0; row < (JDIMENSION)info->blocks_h[c]; row++) {
      JBLOCKARRAY rows =
          (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, arrays[c], row, 1, TRUE);
      memcpy(rows[0], blocks, (size_t)bw * sizeof(JBLOCK));
      blocks += (size_t)bw * 64;
    }
  }
}

/* 0 on success; 1 on a libjpeg error (message written); 2 when `info` is not a layout this
 * takes (components, sampling, block counts); 3 when `out` refused. */
int tf_write_coefficients(const tf_enc_info *info, const short *blocks, tf_out_fn out, void *ctx,
                          char *message, size_t message_len) {
  struct jpeg_compress_struct cinfo;
  tf_error err;
  tf_dest dest;
  jvirt_barray_ptr arrays[TF_MAX_COMPONENTS];
  int c, max_h = 1, max_v = 1;

  if (info->components != 1 && info->components != 3) {
    tf_enc_message(message, message_len, "a JPEG of 1 or 3 components");
    return 2;
  }
  if (info->width < 1 || info->height < 1 || info->width > JPEG_MAX_DIMENSION ||
      info->height > JPEG_MAX_DIMENSION) {
    tf_enc_message(message, message_len, "image size out of JPEG's range");
    return 2;
  }
  for (c = 0; c < info->components; c++) {
    if (info->h[c] < 1 || info->h[c] > 4 || info->v[c] < 1 || info->v[c] > 4 ||
        info->quant_index[c] < 0 || info->quant_index[c] > 1) {
      tf_enc_message(message, message_len, "sampling factor or table index out of range");
      return 2;
    }
    if (info->h[c] > max_h) max_h = info->h[c];
    if (info->v[c] > max_v) max_v = info->v[c];
  }
  for (c = 0; c < info->components; c++) {
    /* jcmaster.c's initial_setup */
    long bw = ((long)info->width * info->h[c] + max_h * DCTSIZE - 1) / (max_h * DCTSIZE);
    long bh = ((long)info->height * info->v[c] + max_v * DCTSIZE - 1) / (max_v * DCTSIZE);
    if (bw != info->blocks_w[c] || bh != info->blocks_h[c]) {
      tf_enc_message(message, message_len, "block counts differ from libjpeg's");
      return 2;
    }
  }

  memset(&dest, 0, sizeof(dest));
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = tf_error_exit;
  err.pub.emit_message = tf_emit_message;
  err.message = message;
  err.message_len = message_len;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    free(dest.buffer);
    return 1;
  }
  jpeg_create_compress(&cinfo);

  /* a first guess at the size: a tenth of the samples, at least 16 KiB */
  dest.size = (size_t)info->width * info->height * info->components / 10 + 16384;
  dest.buffer = (unsigned char *)malloc(dest.size);
  if (!dest.buffer) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 11);
  dest.pub.init_destination = tf_init_destination;
  dest.pub.empty_output_buffer = tf_empty_output_buffer;
  dest.pub.term_destination = tf_term_destination;
  cinfo.dest = &dest.pub;

  /* as TurboJPEG's setCompDefaults: defaults, the colour space (which writes the JFIF
   * marker), the tables of jpeg_set_quality (handed over: entries 1..255 at the qualities
   * this path takes), the sampling factors */
  cinfo.image_width = (JDIMENSION)info->width;
  cinfo.image_height = (JDIMENSION)info->height;
  cinfo.input_components = info->components;
  cinfo.in_color_space = info->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr;
  jpeg_set_defaults(&cinfo);
  jpeg_set_colorspace(&cinfo, info->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr);
  for (int t = 0; t < 2; t++) {
    unsigned int table[64];
    for (int k = 0; k < 64; k++) table[k] = info->quant[t][k];
    /* a scale of 100% keeps the entries as they are */
    jpeg_add_quant_table(&cinfo, t, table, 100, FALSE);
  }
  cinfo.optimize_coding = info->optimize ? TRUE : FALSE;
  cinfo.dct_method = JDCT_ISLOW;
  for (c = 0; c < info->components; c++) {
    cinfo.comp_info[c].h_samp_factor = info->h[c];
    cinfo.comp_info[c].v_samp_factor = info->v[c];
    cinfo.comp_info[c].quant_tbl_no = info->quant_index[c];
  }
  if (info->progressive) jpeg_simple_progression(&cinfo);

  /* the coefficient arrays, rounded up to whole MCUs as the decoder's are: the entropy
   * encoder reads a whole iMCU row at a time and makes the padding blocks itself */
  for (c = 0; c < info->components; c++) {
    JDIMENSION bw = (JDIMENSION)info->blocks_w[c], bh = (JDIMENSION)info->blocks_h[c];
    JDIMENSION h = (JDIMENSION)info->h[c], v = (JDIMENSION)info->v[c];
    arrays[c] = (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, TRUE,
                                                  (bw + h - 1) / h * h, (bh + v - 1) / v * v,
                                                  (JDIMENSION)info->v[c]);
  }
  jpeg_write_coefficients(&cinfo, arrays);
  tf_fill(&cinfo, arrays, info, blocks);
  jpeg_finish_compress(&cinfo);

  size_t len = dest.size - dest.pub.free_in_buffer;
  unsigned char *target = out(ctx, len);
  int status = 0;
  if (target)
    memcpy(target, dest.buffer, len);
  else
    status = 3;
  jpeg_destroy_compress(&cinfo);
  free(dest.buffer);
  return status;
}
