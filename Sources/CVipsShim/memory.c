/* Materialising pipelines, metadata removal, raw pixel access. */
#include <string.h>
#include <vips/vips.h>
#include "warmcache_vips.h"

WCImage *
wc_copy_memory(WCImage *in)
{
    return vips_image_copy_memory(in);
}

int
wc_strip_metadata(WCImage *in, int keep_icc, WCImage **out)
{
    /* Work on a copy: the input may be shared by other variants. */
    if (vips_copy(in, out, NULL))
        return -1;
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i]; i++) {
        if (keep_icc && strcmp(fields[i], VIPS_META_ICC_NAME) == 0)
            continue;
        /* Header fields (width, bands, ...) are not metadata; removing them is a no-op. */
        vips_image_remove(*out, fields[i]);
    }
    g_strfreev(fields);
    return 0;
}

uint8_t *
wc_write_rgba8(WCImage *in, size_t *length)
{
    return wc_write_pixels8(in, 4, length);
}

const uint8_t *
wc_image_pixels(WCImage *in)
{
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR || vips_image_wio_input(in))
        return NULL;
    return (const uint8_t *) VIPS_IMAGE_ADDR(in, 0, 0);
}

uint8_t *
wc_write_pixels8(WCImage *in, int bands, size_t *length)
{
    VipsImage *context = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(context), 4);
    uint8_t *pixels = NULL;
    if (vips_colourspace(in, &t[0], VIPS_INTERPRETATION_sRGB, NULL) == 0 &&
        vips_cast_uchar(t[0], &t[1], NULL) == 0) {
        VipsImage *image = t[1];
        int have = vips_image_get_bands(image);
        if (have == 3 && bands == 4 && vips_bandjoin_const1(image, &t[2], 255.0, NULL) == 0)
            image = t[2];
        else if (have == 4 && bands == 3 && vips_extract_band(image, &t[3], 0, "n", 3, NULL) == 0)
            image = t[3];
        if (vips_image_get_bands(image) == bands)
            pixels = vips_image_write_to_memory(image, length);
        else
            vips_error("warmcache", "cannot convert a %d-band image to %d bands", have, bands);
    }
    g_object_unref(context);
    return pixels;
}

uint8_t *
wc_decode_pixels8(const void *data, size_t length, int bands, int *width, int *height, size_t *size)
{
    WCImage *image = NULL;
    if (wc_load(data, length, &image))
        return NULL;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    uint8_t *pixels = wc_write_pixels8(image, bands, size);
    g_object_unref(image);
    return pixels;
}
