/* HEIF encoding (AVIF and HEIC) through libheif directly, with the colour signalled.
 *
 * libvips 8.14's heifsave leaves the colour description to libheif 1.15, which writes AVIF with
 * nclx primaries and transfer "unspecified" (2/2) and HEIC with no colour box at all, so a
 * decoder has to guess. These files say what the pixels are: sRGB primaries (1), the sRGB
 * transfer curve (13), BT.601 coefficients (6, which libheif also converts with) and full range,
 * in an nclx colr box (or, where the source's ICC profile is kept, that profile). Otherwise the
 * settings are heifsave's: the quality, lossless, speed
 * 9 - effort, 4:4:4 chroma when subsampling is off (or, for AVIF, left to the encoder at quality 90
 * and over), 8 bits, alpha when the image has it, no metadata.
 *
 * HEIC is 4:2:0 unless 4:4:4 is asked for by name: Apple's decoders, which are HEIC's audience,
 * have drawn 4:4:4 HEIC of some sizes wrongly (libheif issue 661: fine at 64x64 and 128x128, garbled
 * at others, in macOS's viewer), and Apple's own HEIC files are 4:2:0.
 */
#include <libheif/heif.h>
#include <string.h>
#include <vips/vips.h>
#include "warmcache_vips.h"

typedef struct {
    uint8_t *bytes;
    size_t length;
} HeifOutput;

static struct heif_error
append_output(struct heif_context *context, const void *data, size_t size, void *userdata)
{
    (void) context;
    HeifOutput *output = userdata;
    output->bytes = g_realloc(output->bytes, output->length + size);
    memcpy(output->bytes + output->length, data, size);
    output->length += size;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    return ok;
}

/* Fails with libheif's message in libvips' error buffer (wc_error_take reads it). */
static int
failed(struct heif_error error)
{
    vips_error("heifsave", "%s", error.message ? error.message : "libheif failed");
    return -1;
}

/* An interleaved 8-bit RGB or RGBA libheif image holding `pixels`. */
static struct heif_error
make_image(const uint8_t *pixels, int width, int height, int bands, struct heif_image **out)
{
    struct heif_error error = heif_image_create(
        width, height, heif_colorspace_RGB,
        bands == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, out);
    if (error.code) return error;
    error = heif_image_add_plane(*out, heif_channel_interleaved, width, height, 8);
    if (error.code) return error;
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(*out, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++)
        memcpy(plane + (size_t) y * stride, pixels + (size_t) y * width * bands, (size_t) width * bands);
    return error;
}

static struct heif_error
configure(struct heif_encoder *encoder, const WCSaveOptions *o, int is_hevc)
{
    struct heif_error error = heif_encoder_set_lossy_quality(encoder, o->quality);
    if (!error.code) error = heif_encoder_set_lossless(encoder, o->lossless);
    if (error.code) return error;
    error = heif_encoder_set_parameter_integer(encoder, "speed", 9 - o->effort);
    if (error.code && error.subcode != heif_suberror_Unsupported_parameter) return error;
    int full_chroma = o->subsample == WC_SUBSAMPLE_OFF
        || (o->subsample == WC_SUBSAMPLE_AUTO && o->quality >= 90 && !is_hevc);
    error = heif_encoder_set_parameter_string(encoder, "chroma", full_chroma ? "444" : "420");
    if (error.code && error.subcode != heif_suberror_Unsupported_parameter) return error;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    return ok;
}

int
wc_save_heif(WCImage *in, const WCSaveOptions *o, int av1, void **data, size_t *length)
{
    int bands = vips_image_hasalpha(in) ? 4 : 3;
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    size_t size = 0;
    uint8_t *pixels = wc_write_pixels8(in, bands, &size);
    if (!pixels) return -1;

    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    HeifOutput output = { NULL, 0 };
    struct heif_error error = heif_context_get_encoder_for_format(
        context, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (!error.code) error = configure(encoder, o, !av1);
    if (!error.code) error = make_image(pixels, width, height, bands, &image);
    /* libheif works from its own copy: this one goes before the encoder starts. */
    g_free(pixels);
    pixels = NULL;
    if (!error.code) {
        nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 1;
        const void *icc = NULL;
        size_t icc_length = 0;
        if (!o->strip && vips_image_get_typeof(in, VIPS_META_ICC_NAME) &&
            !vips_image_get_blob(in, VIPS_META_ICC_NAME, &icc, &icc_length)) {
            /* A kept profile describes pixels left in the source's space: it is the colour box. */
            error = heif_image_set_raw_color_profile(image, "prof", icc, icc_length);
        } else {
            /* libheif 1.15 writes the image's own profile; newer ones the output profile. Both. */
            error = heif_image_set_nclx_color_profile(image, nclx);
            options->output_nclx_profile = nclx;
            options->macOS_compatibility_workaround_no_nclx_profile = 0;
        }
        options->save_alpha_channel = bands == 4;
        if (!error.code) error = heif_context_encode_image(context, image, encoder, options, NULL);
    }
    if (!error.code) {
        struct heif_writer writer = { .writer_api_version = 1, .write = append_output };
        error = heif_context_write(context, &writer, &output);
    }
    heif_nclx_color_profile_free(nclx);
    heif_encoding_options_free(options);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(context);
    if (error.code) {
        g_free(output.bytes);
        return failed(error);
    }
    *data = output.bytes;
    *length = output.length;
    return 0;
}
