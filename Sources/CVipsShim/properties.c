/* Read-only image properties. */
#include <vips/vips.h>
#include "warmcache_vips.h"

int wc_image_width(const WCImage *image) { return vips_image_get_width(image); }
int wc_image_height(const WCImage *image) { return vips_image_get_height(image); }
int wc_image_bands(const WCImage *image) { return vips_image_get_bands(image); }
int wc_image_has_alpha(WCImage *image) { return vips_image_hasalpha(image) ? 1 : 0; }
int wc_image_is_uchar(const WCImage *image) { return vips_image_get_format(image) == VIPS_FORMAT_UCHAR; }
int wc_image_pages(WCImage *image) { return vips_image_get_n_pages(image); }
int wc_image_orientation(WCImage *image) { return vips_image_get_orientation(image); }

int
wc_image_has_icc(const WCImage *image)
{
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0 ? 1 : 0;
}

int
wc_image_has_field(const WCImage *image, const char *name)
{
    return vips_image_get_typeof(image, name) != 0 ? 1 : 0;
}

int
wc_image_space(const WCImage *image)
{
    switch (vips_image_get_interpretation(image)) {
    case VIPS_INTERPRETATION_sRGB: return WC_SPACE_SRGB;
    case VIPS_INTERPRETATION_B_W: return WC_SPACE_BW;
    case VIPS_INTERPRETATION_RGB16: return WC_SPACE_RGB16;
    case VIPS_INTERPRETATION_GREY16: return WC_SPACE_GREY16;
    case VIPS_INTERPRETATION_CMYK: return WC_SPACE_CMYK;
    default: return WC_SPACE_OTHER;
    }
}

int
wc_heif_compression(WCImage *image, char *buffer, size_t capacity)
{
    const char *value = NULL;
    if (vips_image_get_typeof(image, "heif-compression") == 0 ||
        vips_image_get_string(image, "heif-compression", &value) != 0 || value == NULL) {
        /* Any error text is left for the caller to take under its lock (see load.c). */
        return -1;
    }
    g_strlcpy(buffer, value, capacity);
    return 0;
}
