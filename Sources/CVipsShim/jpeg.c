/* JPEG decoding through libjpeg itself, for scoring a search's trial encodes.
 *
 * A search decodes every trial it makes. Through libvips (load, copy to memory, colourspace,
 * write out) that costs three to four times what libjpeg alone needs for the same pixels: the
 * loader's own settings are libjpeg's defaults (accurate integer IDCT, fancy upsampling), which
 * are the ones used here, so the pixels are the same.
 *
 * libjpeg reports errors by calling error_exit, which must not return: it jumps back here.
 */
#include "warmcache_vips.h"

#include <setjmp.h>
#include <stdio.h>
#include <vips/vips.h>
#include <jpeglib.h>

struct WCJPEGError {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void
wc_jpeg_error_exit(j_common_ptr info)
{
    struct WCJPEGError *error = (struct WCJPEGError *) info->err;
    char message[JMSG_LENGTH_MAX];
    info->err->format_message(info, message);
    vips_error("jpeg", "cannot decode: %s", message);
    longjmp(error->jump, 1);
}

static void
wc_jpeg_quiet(j_common_ptr info, int level)
{
    (void) info;
    (void) level;
}

uint8_t *
wc_jpeg_decode8(const void *data, size_t length, int *width, int *height, size_t *size)
{
    struct jpeg_decompress_struct info;
    struct WCJPEGError error;
    /* volatile: assigned after setjmp and read after a longjmp back to it. */
    uint8_t *volatile pixels = NULL;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = wc_jpeg_error_exit;
    error.manager.emit_message = wc_jpeg_quiet;
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
