/* JPEG encoding and decoding through libjpeg itself, for a search's trial encodes.
 *
 * A search encodes and decodes every trial it makes. Through libvips (a pipeline, its worker
 * threads, load, copy to memory, colourspace, write out) that costs half as much again as
 * libjpeg alone to encode, and three to four times as much to decode. The settings here are
 * the ones libvips 8.14 gives libjpeg: for saving, jpegsave's with `strip` (libjpeg's defaults,
 * the quality's tables forced to baseline, optimised Huffman tables, progressive scans on request,
 * full chroma when asked or from quality 90 in the automatic mode, no JFIF or other markers); for
 * loading, the loader's (libjpeg's defaults: accurate integer IDCT, fancy upsampling). So the files
 * and the pixels are the same bytes (the test suite compares them).
 *
 * libjpeg reports errors by calling error_exit, which must not return: it jumps back here.
 */
#include "warmcache_vips.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>
#include <jpeglib.h>

struct WCJPEGError {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    const char *doing;
};

static void
wc_jpeg_error_exit(j_common_ptr info)
{
    struct WCJPEGError *error = (struct WCJPEGError *) info->err;
    char message[JMSG_LENGTH_MAX];
    info->err->format_message(info, message);
    vips_error("jpeg", "cannot %s: %s", error->doing, message);
    longjmp(error->jump, 1);
}

static void
wc_jpeg_quiet(j_common_ptr info, int level)
{
    (void) info;
    (void) level;
}

/* Errors that jump back to `error->jump` with a message saying what failed ("decode"); warnings
 * are not printed. */
static struct jpeg_error_mgr *
wc_jpeg_errors(struct WCJPEGError *error, const char *doing)
{
    struct jpeg_error_mgr *manager = jpeg_std_error(&error->manager);
    manager->error_exit = wc_jpeg_error_exit;
    manager->emit_message = wc_jpeg_quiet;
    error->doing = doing;
    return manager;
}

uint8_t *
wc_jpeg_decode8(const void *data, size_t length, int *width, int *height, size_t *size)
{
    struct jpeg_decompress_struct info;
    struct WCJPEGError error;
    /* volatile: assigned after setjmp and read after a longjmp back to it. */
    uint8_t *volatile pixels = NULL;
    info.err = wc_jpeg_errors(&error, "decode");
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        g_free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, (const unsigned char *) data, (unsigned long) length);
    jpeg_read_header(&info, TRUE);
    if (info.num_components != 1 && info.num_components != 3) {
        vips_error("jpeg", "cannot decode a JPEG with %d components for scoring", info.num_components);
        jpeg_destroy_decompress(&info);
        return NULL;
    }
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    size_t row = (size_t) info.output_width * 3;
    pixels = g_malloc(row * info.output_height);
    while (info.output_scanline < info.output_height) {
        JSAMPROW line = pixels + row * info.output_scanline;
        jpeg_read_scanlines(&info, &line, 1);
    }
    jpeg_finish_decompress(&info);
    *width = (int) info.output_width;
    *height = (int) info.output_height;
    *size = row * info.output_height;
    jpeg_destroy_decompress(&info);
    return pixels;
}

int
wc_jpeg_encode8(const uint8_t *pixels, int width, int height, int quality, int progressive, int subsample,
                void **data, size_t *length)
{
    struct jpeg_compress_struct info;
    struct WCJPEGError error;
    /* volatile: assigned by libjpeg after setjmp and freed after a longjmp back to it. */
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    info.err = wc_jpeg_errors(&error, "encode");
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **) &buffer, &size);
    info.image_width = (JDIMENSION) width;
    info.image_height = (JDIMENSION) height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    info.optimize_coding = TRUE;
    jpeg_set_quality(&info, quality, TRUE);
    if (progressive)
        jpeg_simple_progression(&info);
    if (subsample == WC_SUBSAMPLE_OFF || (subsample == WC_SUBSAMPLE_AUTO && quality >= 90)) {
        for (int i = 0; i < 3; i++) {
            info.comp_info[i].h_samp_factor = 1;
            info.comp_info[i].v_samp_factor = 1;
        }
    }
    info.write_JFIF_header = FALSE;
    jpeg_start_compress(&info, TRUE);
    const size_t row = (size_t) width * 3;
    while (info.next_scanline < info.image_height) {
        JSAMPROW line = (JSAMPROW) (pixels + row * info.next_scanline);
        jpeg_write_scanlines(&info, &line, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    /* jpeg_mem_dest allocates with malloc, which wc_free (g_free) releases, as for libwebp. */
    *data = buffer;
    *length = size;
    return 0;
}
