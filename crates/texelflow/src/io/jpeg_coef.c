/* The quantised DCT coefficients of a JPEG, read by libjpeg-turbo's entropy decoder
 * (jpeg_read_coefficients), for the GPU-assisted decode of issue 30: the CPU does only the
 * Huffman decoding; dequantisation, the IDCT, upsampling and colour conversion run on the GPU.
 * A plain-C interface so that Rust never mirrors libjpeg's structs (their layout depends on
 * jconfig.h). Errors longjmp out of libjpeg into a message; nothing here prints. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jpeglib.h"
#include "jpeg_shim.h"

#define TF_MAX_COMPONENTS 4

/* What the Rust side needs to reconstruct the pixels. Blocks are stored per component in
 * raster order, `blocks_w x blocks_h` blocks of 64 coefficients in natural (row-major, not
 * zig-zag) order; `quant` is each component's table in natural order. */
typedef struct {
  int width, height, components, progressive, color_space, precision;
  int max_h, max_v;
  int h[TF_MAX_COMPONENTS], v[TF_MAX_COMPONENTS];
  int blocks_w[TF_MAX_COMPONENTS], blocks_h[TF_MAX_COMPONENTS];
  unsigned short quant[TF_MAX_COMPONENTS][64];
} tf_coef_info;

/* Asked for the coefficient storage once the sizes are known: `count` shorts, or NULL to stop. */
typedef short *(*tf_alloc_fn)(void *ctx, size_t count);

/* The leading members of libjpeg's `struct jpeg_inverse_dct` (jpegint.h, an internal header
 * that is not installed): a start_pass method, then one IDCT method per component. Its layout
 * has been the same since libjpeg 6b; the tests' bit-exact comparisons would fail at once if
 * it changed. */
typedef void (*tf_idct_fn)(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY,
                           JDIMENSION);
typedef struct {
  void (*start_pass)(j_decompress_ptr);
  tf_idct_fn inverse_DCT[MAX_COMPONENTS];
} tf_inverse_dct_prefix;

/* Takes the place of the IDCT: libjpeg hands each decoded block (quantised, natural order)
 * with the row pointers it was given for the block's rows and the block's first column. Our
 * row pointers are not sample rows: each holds the address of its block row in the
 * coefficient planes, so the block lands at column `col / 8` of that row. */
static void tf_capture_block(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef,
                             JSAMPARRAY rows, JDIMENSION col) {
  (void)cinfo;
  (void)comp;
  memcpy((JCOEF *)(void *)rows[0] + (size_t)col * 8, coef, DCTSIZE2 * sizeof(JCOEF));
}

/* 0 on success; 1 on a libjpeg error (message written); 2 when the file is not one this path
 * takes (more than 4 components, 12-bit, lossless); 3 when `alloc` refused.
 *
 * The blocks are taken as libjpeg-turbo's decoder makes them, through its raw-data path (no
 * upsampling or colour conversion) with the IDCT replaced by `tf_capture_block`: a baseline
 * file is decoded an MCU row at a time straight into `out`, without the whole-image
 * coefficient arrays that jpeg_read_coefficients fills and we would copy (measured 51 ms
 * against 37.5 for libjpeg-turbo's whole decode of a 4K 4:2:0 photo, one core). Progressive
 * and multi-scan files keep libjpeg's whole-image buffer, which they need. */
int tf_read_coefficients(const unsigned char *data, unsigned long len, tf_coef_info *info,
                         tf_alloc_fn alloc, void *ctx, char *message, size_t message_len) {
  struct jpeg_decompress_struct cinfo;
  tf_error err;
  /* volatile: assigned after setjmp and freed after a longjmp */
  JSAMPROW *volatile rows = NULL;
  memset(info, 0, sizeof(*info));
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = tf_error_exit;
  err.pub.emit_message = tf_emit_message;
  err.message = message;
  err.message_len = message_len;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    free(rows);
    return 1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, len);
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.num_components > TF_MAX_COMPONENTS || cinfo.num_components < 1 ||
      cinfo.data_precision != 8) {
    jpeg_destroy_decompress(&cinfo);
    return 2;
  }
  cinfo.raw_data_out = TRUE;
  /* the colour space stays the file's: raw data is the components as stored */
  cinfo.out_color_space = cinfo.jpeg_color_space;
  jpeg_start_decompress(&cinfo);
  info->width = (int)cinfo.image_width;
  info->height = (int)cinfo.image_height;
  info->components = cinfo.num_components;
  info->progressive = cinfo.progressive_mode ? 1 : 0;
  info->color_space = (int)cinfo.jpeg_color_space;
  info->precision = cinfo.data_precision;
  info->max_h = cinfo.max_h_samp_factor;
  info->max_v = cinfo.max_v_samp_factor;
  size_t total = 0;
  short *base[TF_MAX_COMPONENTS];
  for (int c = 0; c < cinfo.num_components; c++) {
    jpeg_component_info *comp = &cinfo.comp_info[c];
    info->h[c] = comp->h_samp_factor;
    info->v[c] = comp->v_samp_factor;
    info->blocks_w[c] = (int)comp->width_in_blocks;
    info->blocks_h[c] = (int)comp->height_in_blocks;
    if (!comp->quant_table || comp->DCT_scaled_size != DCTSIZE) {
      if (message && message_len > 0) {
        strncpy(message, "a component has no quantisation table", message_len - 1);
        message[message_len - 1] = '\0';
      }
      jpeg_destroy_decompress(&cinfo);
      return 1;
    }
    for (int k = 0; k < 64; k++) info->quant[c][k] = comp->quant_table->quantval[k];
    total += (size_t)comp->width_in_blocks * comp->height_in_blocks * 64;
  }
  short *out = alloc(ctx, total);
  if (!out) {
    jpeg_destroy_decompress(&cinfo);
    return 3;
  }
  tf_inverse_dct_prefix *idct = (tf_inverse_dct_prefix *)(void *)cinfo.idct;
  int rows_per_call = cinfo.max_v_samp_factor * DCTSIZE;
  rows = (JSAMPROW *)malloc(sizeof(JSAMPROW) * (size_t)rows_per_call * cinfo.num_components);
  if (!rows) {
    jpeg_destroy_decompress(&cinfo);
    return 3;
  }
  JSAMPARRAY planes[TF_MAX_COMPONENTS];
  size_t offset = 0;
  for (int c = 0; c < cinfo.num_components; c++) {
    idct->inverse_DCT[c] = tf_capture_block;
    base[c] = out + offset;
    offset += (size_t)cinfo.comp_info[c].width_in_blocks * cinfo.comp_info[c].height_in_blocks * 64;
    planes[c] = rows + (size_t)c * rows_per_call;
  }
  for (JDIMENSION imcu = 0; cinfo.output_scanline < cinfo.output_height; imcu++) {
    for (int c = 0; c < cinfo.num_components; c++) {
      jpeg_component_info *comp = &cinfo.comp_info[c];
      size_t row_blocks = (size_t)comp->width_in_blocks * 64;
      for (int k = 0; k < comp->v_samp_factor * DCTSIZE; k++) {
        size_t block_row = (size_t)imcu * comp->v_samp_factor + (size_t)(k / DCTSIZE);
        /* rows past the last block row are never written (libjpeg skips dummy blocks) */
        if (block_row >= comp->height_in_blocks) block_row = 0;
        planes[c][k] = (JSAMPROW)(void *)(base[c] + block_row * row_blocks);
      }
    }
    if (jpeg_read_raw_data(&cinfo, planes, (JDIMENSION)rows_per_call) == 0) {
      if (message && message_len > 0) {
        strncpy(message, "the data ended early", message_len - 1);
        message[message_len - 1] = '\0';
      }
      jpeg_destroy_decompress(&cinfo);
      free(rows);
      return 1;
    }
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  free(rows);
  return 0;
}
