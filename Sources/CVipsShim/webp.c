/* Lossy WebP through libwebp itself, for searches that encode one image at many qualities.
 *
 * libvips' webpsave converts RGB to YUV on every call; with sharp RGB-to-YUV (the "smart
 * subsample" option) that conversion costs about as much as the encode itself. A prepared
 * picture converts once and is then encoded at any quality, with the configuration libvips
 * builds (the default preset at the quality, the effort as the method, alpha at quality 100),
 * so each encode gives the bytes webpsave gives for the same pixels and options.
 *
 * libwebp allocates what it returns with malloc; wc_free (g_free) releases it, as libvips
 * itself does with the buffers webpsave hands over (glib allocates with the system malloc).
 */
#include "warmcache_vips.h"

#include <stdlib.h>
#include <vips/vips.h>
#include <webp/decode.h>
#include <webp/encode.h>

struct WCWebPPicture {
    WebPPicture picture;
};

/* The sharp conversion by wc_sharp_yuv_wide, as WebPPictureSharpARGBToYUVA would leave the
 * picture: YUV 4:2:0 planes, plus the alpha plane when some pixel is not opaque. */
static int
prepare_sharp_wide(WebPPicture *picture, const uint8_t *pixels, int bands)
{
    const int width = picture->width, height = picture->height;
    int has_alpha = 0;
    if (bands == 4) {
        for (size_t i = 3; i < (size_t) width * height * 4 && !has_alpha; i += 4)
            has_alpha = pixels[i] != 255;
    }
    picture->use_argb = 0;
    picture->colorspace = has_alpha ? WEBP_YUV420A : WEBP_YUV420;
    if (!WebPPictureAlloc(picture))
        return 0;
    if (!wc_sharp_yuv_wide(pixels, bands, width * bands, width, height, picture->y, picture->y_stride, picture->u,
                           picture->v, picture->uv_stride))
        return 0;
    if (has_alpha) {
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                picture->a[(size_t) y * picture->a_stride + x] = pixels[((size_t) y * width + x) * 4 + 3];
    }
    return 1;
}

WCWebPPicture *
wc_webp_prepare(const uint8_t *pixels, int width, int height, int bands, int sharp_yuv, int wide)
{
    WCWebPPicture *prepared = calloc(1, sizeof(WCWebPPicture));
    if (!prepared || !WebPPictureInit(&prepared->picture)) {
        free(prepared);
        vips_error("webp", "out of memory");
        return NULL;
    }
    WebPPicture *picture = &prepared->picture;
    picture->width = width;
    picture->height = height;
    // libwebp converts pictures under 4 px a side the plain way, even when asked for sharp.
    if (sharp_yuv && wide && width >= 4 && height >= 4 && wc_cpu_wide()) {
        if (!prepare_sharp_wide(picture, pixels, bands)) {
            WebPPictureFree(picture);
            free(prepared);
            vips_error("webp", "cannot convert %dx%d pixels to YUV", width, height);
            return NULL;
        }
        return prepared;
    }
    // As webpsave: sharp conversion starts from ARGB; the plain one imports straight to YUV.
    picture->use_argb = sharp_yuv ? 1 : 0;
    int imported = bands == 4 ? WebPPictureImportRGBA(picture, pixels, width * 4)
                              : WebPPictureImportRGB(picture, pixels, width * 3);
    if (!imported || (sharp_yuv && !WebPPictureSharpARGBToYUVA(picture))) {
        WebPPictureFree(picture);
        free(prepared);
        vips_error("webp", "cannot convert %dx%d pixels to YUV", width, height);
        return NULL;
    }
    return prepared;
}

int
wc_webp_encode(const WCWebPPicture *prepared, int quality, int effort, void **data, size_t *length)
{
    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, (float) quality)) {
        vips_error("webp", "config version error");
        return -1;
    }
    config.method = effort;
    config.alpha_quality = 100;
    if (!WebPValidateConfig(&config)) {
        vips_error("webp", "invalid configuration");
        return -1;
    }
    // The encoder may touch the picture's alpha plane (it flattens fully transparent blocks):
    // a picture with one is encoded from a copy. One without is only read: it is lent as it is.
    WebPPicture picture;
    const int lent = prepared->picture.a == NULL;
    if (lent) {
        picture = prepared->picture;
    } else if (!WebPPictureInit(&picture) || !WebPPictureCopy(&prepared->picture, &picture)) {
        vips_error("webp", "out of memory");
        return -1;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    int error = picture.error_code;
    if (!lent)
        WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        vips_error("webp", "unable to encode (libwebp error %d)", error);
        return -1;
    }
    *data = writer.mem;
    *length = writer.size;
    return 0;
}

void
wc_webp_free(WCWebPPicture *prepared)
{
    if (!prepared)
        return;
    WebPPictureFree(&prepared->picture);
    free(prepared);
}

uint8_t *
wc_webp_decode8(const void *data, size_t length, int bands, int *width, int *height, size_t *size)
{
    uint8_t *pixels = bands == 4 ? WebPDecodeRGBA(data, length, width, height)
                                 : WebPDecodeRGB(data, length, width, height);
    if (!pixels) {
        vips_error("webp", "cannot decode");
        return NULL;
    }
    *size = (size_t) *width * (size_t) *height * (size_t) bands;
    return pixels;
}
