/* Read-only image properties. */
#include <string.h>
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

static uint32_t
icc_u32(const unsigned char *p)
{
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

/* Whether a profile description names the standard sRGB space: "sRGB IEC61966-2.1" (and its
 * "2-1" spelling, as cameras, phones and most software embed it), libvips' own "sRGB", and
 * Little CMS' "sRGB built-in". */
static int
icc_names_srgb(const unsigned char *text, size_t length)
{
    static const char *const exact[] = {"sRGB", "sRGB built-in"};
    static const char prefix[] = "sRGB IEC61966-2";
    while (length > 0 && text[length - 1] == 0)
        length--;
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        if (length == strlen(exact[i]) && memcmp(text, exact[i], length) == 0)
            return 1;
    }
    return length >= sizeof(prefix) - 1 && memcmp(text, prefix, sizeof(prefix) - 1) == 0;
}

/* Whether an ICC profile is the standard sRGB one: an RGB display profile whose description
 * (the 'desc' type of v2 profiles, or the first record of a v4 'mluc') names sRGB (see above).
 * Converting such pixels to sRGB changes nothing but costs a colour transform per pixel. */
int
wc_icc_is_srgb(const void *data, size_t length)
{
    const unsigned char *icc = data;
    if (!icc || length < 132 || memcmp(icc + 16, "RGB ", 4) != 0 || memcmp(icc + 36, "acsp", 4) != 0)
        return 0;
    uint32_t count = icc_u32(icc + 128);
    if (count > (length - 132) / 12)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *entry = icc + 132 + 12 * i;
        if (memcmp(entry, "desc", 4) != 0)
            continue;
        uint32_t offset = icc_u32(entry + 4), size = icc_u32(entry + 8);
        if (offset > length || size > length - offset || size < 12)
            return 0;
        const unsigned char *tag = icc + offset;
        if (memcmp(tag, "desc", 4) == 0) {
            /* ASCII: a count (with the terminating zero), then the text. */
            uint32_t characters = icc_u32(tag + 8);
            return characters <= size - 12 && icc_names_srgb(tag + 12, characters);
        }
        if (memcmp(tag, "mluc", 4) == 0 && size >= 28) {
            /* UTF-16BE records: the first one's length and offset (from the tag's start). */
            uint32_t text_length = icc_u32(tag + 20), text_offset = icc_u32(tag + 24);
            if (text_offset > size || text_length > size - text_offset || text_length > 2 * 64)
                return 0;
            unsigned char text[64];
            size_t characters = text_length / 2;
            for (size_t c = 0; c < characters; c++) {
                if (tag[text_offset + 2 * c] != 0)
                    return 0;
                text[c] = tag[text_offset + 2 * c + 1];
            }
            return icc_names_srgb(text, characters);
        }
        return 0;
    }
    return 0;
}

int
wc_image_icc_is_srgb(const WCImage *image)
{
    const void *data;
    size_t length;
    /* The field's type is checked first, so reading it cannot fail (nor leave an error message). */
    if (vips_image_get_typeof(image, VIPS_META_ICC_NAME) != VIPS_TYPE_BLOB ||
        vips_image_get_blob((VipsImage *) image, VIPS_META_ICC_NAME, &data, &length) != 0)
        return 0;
    return wc_icc_is_srgb(data, length);
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
