/* AVIF encoding through libavif (with libaom), the colour signalled.
 *
 * The file says what the pixels are, as heif.c does for HEIC: sRGB primaries (1), the sRGB
 * transfer curve (13), BT.601 coefficients (6, which the RGB-to-YUV conversion here uses) and
 * full range, in an nclx colr box; where the source's ICC profile is kept, that profile instead.
 *
 * Settings (docs/imaging.md, "AVIF"):
 * - quality 1–100 maps to libaom's quantizer 0–63 as libheif's aom plugin maps it, so a quality
 *   means the same quantizer it meant when AVIF went through libheif: q = ((100 - quality) * 63
 *   + 50) / 100, in libaom's constant-quality mode (end-usage q, cq-level q, quantizer range
 *   0–63). Alpha gets the same quantizer. Lossless is quantizer 0 with 4:4:4.
 * - speed (libaom's cpu-used) comes from the effort as it did through libheif: 9 - effort; libaom's
 *   own options (such as enable-rect-partitions=0) come from the caller, per search speed
 *   (SearchSpeed+Search.swift).
 * - one still image (AVIF_ADD_IMAGE_FLAG_SINGLE): libavif 0.11 then uses libaom's all-intra mode.
 * - chroma: 4:4:4 when subsampling is off (or left to the encoder at quality 90 and over), else
 *   4:2:0, as for libheif; 8 bits; one thread (the warm runs several imaging processes).
 */
#include <avif/avif.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>
#include "warmcache_vips.h"

/* libavif 1.0 made these setters return an avifResult (void in Debian's 0.11): one spelling. */
#if AVIF_VERSION_MAJOR >= 1
#define WC_AVIF_CHECKED(call) (call)
#else
#define WC_AVIF_CHECKED(call) ((call), AVIF_RESULT_OK)
#endif

void
wc_avif_encoder_name(char *buffer, size_t capacity)
{
    char codecs[256];
    avifCodecVersions(codecs);
    snprintf(buffer, capacity, "libavif %s (%s)", avifVersion(), codecs);
}

int
wc_avif_quantizer(int quality)
{
    if (quality < 0) quality = 0;
    if (quality > 100) quality = 100;
    return ((100 - quality) * 63 + 50) / 100;
}

int
wc_avif_speed(int effort)
{
    int speed = 9 - effort;
    return speed < 0 ? 0 : speed > 9 ? 9 : speed;
}

static int
failed(const char *what, avifResult result)
{
    vips_error("avifsave", "%s: %s", what, avifResultToString(result));
    return -1;
}

/* Sets "key=value,key=value" codec options (libaom's own names) on the encoder. */
static avifResult
set_codec_options(avifEncoder *encoder, const char *list)
{
    if (!list || !*list) return AVIF_RESULT_OK;
    char *copy = g_strdup(list), *save = NULL;
    avifResult result = AVIF_RESULT_OK;
    for (char *item = strtok_r(copy, ",", &save); item && result == AVIF_RESULT_OK; item = strtok_r(NULL, ",", &save)) {
        char *equals = strchr(item, '=');
        if (!equals) {
            result = AVIF_RESULT_INVALID_CODEC_SPECIFIC_OPTION;
            break;
        }
        *equals = '\0';
        result = WC_AVIF_CHECKED(avifEncoderSetCodecSpecificOption(encoder, item, equals + 1));
    }
    g_free(copy);
    return result;
}

int
wc_save_avif_tuned(WCImage *in, const WCSaveOptions *o, const WCAvifTuning *tuning, void **data, size_t *length)
{
    int bands = vips_image_hasalpha(in) ? 4 : 3;
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    size_t size = 0;
    uint8_t *pixels = wc_write_pixels8(in, bands, &size);
    if (!pixels) return -1;

    int full_chroma = o->lossless || o->subsample == WC_SUBSAMPLE_OFF ||
                      (o->subsample == WC_SUBSAMPLE_AUTO && o->quality >= 90);
    avifImage *image = avifImageCreate(width, height, 8, full_chroma ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avifEncoderCreate();
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult result = image && encoder ? AVIF_RESULT_OK : AVIF_RESULT_OUT_OF_MEMORY;
    const char *step = "setting up";

    if (result == AVIF_RESULT_OK) {
        image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
        image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
        image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
        image->yuvRange = AVIF_RANGE_FULL;
        const void *icc = NULL;
        size_t icc_length = 0;
        /* A kept profile describes pixels left in the source's space: it is the colour box. */
        if (!o->strip && vips_image_get_typeof(in, VIPS_META_ICC_NAME) &&
            !vips_image_get_blob(in, VIPS_META_ICC_NAME, &icc, &icc_length))
            result = WC_AVIF_CHECKED(avifImageSetProfileICC(image, icc, icc_length));

        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = bands == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
        rgb.depth = 8;
        rgb.pixels = pixels;
        rgb.rowBytes = (uint32_t) width * (uint32_t) bands;
        rgb.ignoreAlpha = bands == 3;
        step = result == AVIF_RESULT_OK ? "converting to YUV" : "attaching the ICC profile";
        if (result == AVIF_RESULT_OK) result = avifImageRGBToYUV(image, &rgb);
    }
    /* The encoder works from the YUV planes: the RGB copy goes before it starts. */
    g_free(pixels);
    pixels = NULL;
    if (result == AVIF_RESULT_OK) {
        int quantizer = o->lossless ? 0 : wc_avif_quantizer(o->quality);
        encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
        encoder->maxThreads = 1;
        encoder->speed = tuning && tuning->speed >= 0 ? tuning->speed : wc_avif_speed(o->effort);
        if (o->lossless) {
            encoder->minQuantizer = encoder->maxQuantizer = AVIF_QUANTIZER_LOSSLESS;
            encoder->minQuantizerAlpha = encoder->maxQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        } else {
            char level[8];
            snprintf(level, sizeof level, "%d", quantizer);
            encoder->minQuantizer = encoder->minQuantizerAlpha = AVIF_QUANTIZER_BEST_QUALITY;
            encoder->maxQuantizer = encoder->maxQuantizerAlpha = AVIF_QUANTIZER_WORST_QUALITY;
            /* tune=ssim, libaom's default here; libavif 1.4 with a newer libaom would pick "iq". */
            result = WC_AVIF_CHECKED(avifEncoderSetCodecSpecificOption(encoder, "end-usage", "q"));
            if (result == AVIF_RESULT_OK)
                result = WC_AVIF_CHECKED(avifEncoderSetCodecSpecificOption(encoder, "cq-level", level));
            if (result == AVIF_RESULT_OK)
                result = WC_AVIF_CHECKED(avifEncoderSetCodecSpecificOption(encoder, "tune", "ssim"));
        }
        step = "setting the codec options";
        if (result == AVIF_RESULT_OK) result = set_codec_options(encoder, tuning ? tuning->codec_options : NULL);
    }
    if (result == AVIF_RESULT_OK) {
        avifAddImageFlags flags = tuning && !tuning->single_image ? AVIF_ADD_IMAGE_FLAG_NONE : AVIF_ADD_IMAGE_FLAG_SINGLE;
        step = "encoding";
        result = avifEncoderAddImage(encoder, image, 1, flags);
    }
    if (result == AVIF_RESULT_OK) {
        step = "writing the file";
        result = avifEncoderFinish(encoder, &output);
    }
    if (encoder) avifEncoderDestroy(encoder);
    if (image) avifImageDestroy(image);
    if (result != AVIF_RESULT_OK) {
        avifRWDataFree(&output);
        return failed(step, result);
    }
    /* libavif allocates with malloc, which wc_free (g_free) releases, as for libjpeg and libwebp. */
    *data = output.data;
    *length = output.size;
    return 0;
}

uint8_t *
wc_avif_chroma_roundtrip8(const uint8_t *pixels, int width, int height, int bands, size_t *length)
{
    avifImage *image = avifImageCreate(width, height, 8, AVIF_PIXEL_FORMAT_YUV420);
    size_t size = (size_t) width * (size_t) height * (size_t) bands;
    uint8_t *out = image ? g_malloc(size) : NULL;
    avifResult result = out ? AVIF_RESULT_OK : AVIF_RESULT_OUT_OF_MEMORY;
    if (result == AVIF_RESULT_OK) {
        image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
        image->yuvRange = AVIF_RANGE_FULL;
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = bands == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
        rgb.depth = 8;
        rgb.rowBytes = (uint32_t) width * (uint32_t) bands;
        rgb.ignoreAlpha = 1;
        rgb.pixels = (uint8_t *) pixels;
        result = avifImageRGBToYUV(image, &rgb);
        if (result == AVIF_RESULT_OK) {
            /* The alpha of the round trip is the original's: only chroma is under test. */
            if (bands == 4) memcpy(out, pixels, size);
            rgb.pixels = out;
            result = avifImageYUVToRGB(image, &rgb);
        }
    }
    if (image) avifImageDestroy(image);
    if (result != AVIF_RESULT_OK) {
        g_free(out);
        vips_error("avifsave", "chroma round trip: %s", avifResultToString(result));
        return NULL;
    }
    *length = size;
    return out;
}
