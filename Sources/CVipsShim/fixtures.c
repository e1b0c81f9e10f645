/* Helpers that build test inputs and read pixels back. */
#include <vips/vips.h>
#include "warmcache_vips.h"

WCImage *
wc_image_from_pixels(const uint8_t *pixels, int width, int height, int bands)
{
    VipsImage *image = vips_image_new_from_memory_copy(pixels, (size_t) width * height * bands, width, height,
                                                       bands, VIPS_FORMAT_UCHAR);
    if (image)
        image->Type = bands <= 2 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    return image;
}

int
wc_set_int(WCImage *in, const char *name, int value, WCImage **out)
{
    if (vips_copy(in, out, NULL))
        return -1;
    vips_image_set_int(*out, name, value);
    return 0;
}

int
wc_set_string(WCImage *in, const char *name, const char *value, WCImage **out)
{
    if (vips_copy(in, out, NULL))
        return -1;
    vips_image_set_string(*out, name, value);
    return 0;
}

int
wc_icc_transform(WCImage *in, const char *profile, WCImage **out)
{
    return vips_icc_transform(in, out, profile, "input_profile", "srgb", "embedded", FALSE, NULL);
}

int
wc_join_vertical(WCImage **images, int count, WCImage **out)
{
    return vips_arrayjoin(images, out, count, "across", 1, NULL);
}

int
wc_getpoint(WCImage *in, int x, int y, double *values, int capacity)
{
    double *vector = NULL;
    int n = 0;
    if (vips_getpoint(in, &vector, &n, x, y, NULL))
        return -1;
    for (int i = 0; i < n && i < capacity; i++)
        values[i] = vector[i];
    g_free(vector);
    return n;
}
