/* Geometry and colour operations. Each returns 0 / -1 and a new reference in *out. */
#include <vips/vips.h>
#include "warmcache_vips.h"

/* Hands the image in t[index] to the caller and releases the temporaries owned by `context`. */
static int
finish(VipsImage *context, VipsImage **t, int index, int status, VipsImage **out)
{
    if (status == 0) {
        *out = t[index];
        g_object_ref(*out);
    }
    g_object_unref(context);
    return status;
}

int
wc_resize(WCImage *in, double hscale, double vscale, WCImage **out)
{
    if (!vips_image_hasalpha(in))
        return vips_resize(in, out, hscale, "vscale", vscale, NULL);

    /* Resample premultiplied, or transparent pixels' colour bleeds into the edges. */
    VipsImage *context = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(context), 4);
    int status = vips_premultiply(in, &t[0], NULL) ||
        vips_resize(t[0], &t[1], hscale, "vscale", vscale, NULL) ||
        vips_unpremultiply(t[1], &t[2], NULL) ||
        vips_cast(t[2], &t[3], vips_image_get_format(in), NULL) ? -1 : 0;
    return finish(context, t, 3, status, out);
}

/* The image at half its size, rounded down: each pixel the mean of a 2x2 block (premultiplied when
 * there is alpha), as a JPEG decoder shrinking on load averages its blocks. Exact and cheap: a
 * ladder step below the decoded ones is the step above it halved. */
int
wc_halve(WCImage *in, WCImage **out)
{
    int width = vips_image_get_width(in) / 2, height = vips_image_get_height(in) / 2;
    if (width < 1 || height < 1) return vips_copy(in, out, NULL);
    VipsImage *context = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(context), 5);
    int status;
    if (!vips_image_hasalpha(in)) {
        status = vips_shrink(in, &t[0], 2.0, 2.0, NULL) ||
            vips_extract_area(t[0], &t[1], 0, 0, width, height, NULL) ? -1 : 0;
        return finish(context, t, 1, status, out);
    }
    status = vips_premultiply(in, &t[0], NULL) ||
        vips_shrink(t[0], &t[1], 2.0, 2.0, NULL) ||
        vips_extract_area(t[1], &t[2], 0, 0, width, height, NULL) ||
        vips_unpremultiply(t[2], &t[3], NULL) ||
        vips_cast(t[3], &t[4], vips_image_get_format(in), NULL) ? -1 : 0;
    return finish(context, t, 4, status, out);
}

int
wc_crop(WCImage *in, int left, int top, int width, int height, WCImage **out)
{
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int
wc_smartcrop(WCImage *in, int width, int height, int interesting, WCImage **out)
{
    VipsInteresting mode = interesting == WC_INTERESTING_ENTROPY ? VIPS_INTERESTING_ENTROPY
                                                                 : VIPS_INTERESTING_ATTENTION;
    return vips_smartcrop(in, out, width, height, "interesting", mode, NULL);
}

int
wc_embed(WCImage *in, int x, int y, int width, int height, const double *background, int count, WCImage **out)
{
    VipsArrayDouble *array = vips_array_double_new(background, count);
    int status = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND,
                            "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return status;
}

int
wc_flatten(WCImage *in, const double *background, int count, WCImage **out)
{
    VipsArrayDouble *array = vips_array_double_new(background, count);
    int status = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return status;
}

int
wc_colourspace(WCImage *in, int space, WCImage **out)
{
    VipsInterpretation target;
    switch (space) {
    case WC_SPACE_BW: target = VIPS_INTERPRETATION_B_W; break;
    case WC_SPACE_RGB16: target = VIPS_INTERPRETATION_RGB16; break;
    case WC_SPACE_GREY16: target = VIPS_INTERPRETATION_GREY16; break;
    default: target = VIPS_INTERPRETATION_sRGB; break;
    }
    return vips_colourspace(in, out, target, NULL);
}

int
wc_cast_uchar(WCImage *in, WCImage **out)
{
    return vips_cast_uchar(in, out, NULL);
}

int
wc_add_alpha(WCImage *in, WCImage **out)
{
    return vips_bandjoin_const1(in, out, 255.0, NULL);
}

int
wc_gaussblur(WCImage *in, double sigma, WCImage **out)
{
    if (!vips_image_hasalpha(in))
        return vips_gaussblur(in, out, sigma, NULL);

    VipsImage *context = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(context), 4);
    int status = vips_premultiply(in, &t[0], NULL) ||
        vips_gaussblur(t[0], &t[1], sigma, NULL) ||
        vips_unpremultiply(t[1], &t[2], NULL) ||
        vips_cast(t[2], &t[3], vips_image_get_format(in), NULL) ? -1 : 0;
    return finish(context, t, 3, status, out);
}

int
wc_apply_alpha_mask(WCImage *in, const uint8_t *mask, int width, int height, WCImage **out)
{
    VipsImage *context = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(context), 6);
    t[0] = vips_image_new_from_memory_copy(mask, (size_t) width * height, width, height, 1, VIPS_FORMAT_UCHAR);
    if (!t[0])
        return finish(context, t, 0, -1, out);
    if (!vips_image_hasalpha(in)) {
        int status = vips_bandjoin2(in, t[0], &t[1], NULL) ? -1 : 0;
        return finish(context, t, 1, status, out);
    }
    /* new alpha = alpha * mask / 255, rounded */
    int bands = vips_image_get_bands(in);
    int status = vips_extract_band(in, &t[1], 0, "n", bands - 1, NULL) ||
        vips_extract_band(in, &t[2], bands - 1, NULL) ||
        vips_multiply(t[2], t[0], &t[3], NULL) ||
        vips_linear1(t[3], &t[4], 1.0 / 255.0, 0.5, NULL) ||
        vips_cast_uchar(t[4], &t[5], NULL) ? -1 : 0;
    if (status != 0)
        return finish(context, t, 0, -1, out);
    VipsImage *joined = NULL;
    status = vips_bandjoin2(t[1], t[5], &joined, NULL);
    g_object_unref(context);
    if (status == 0)
        *out = joined;
    return status;
}
