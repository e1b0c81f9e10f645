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

/* One output row of wc_halve: each pixel the rounded mean of the 2x2 block below it in rows
 * `top` and `bottom` (the same row when the input is one pixel high; `pair` 0 when it is one
 * pixel wide); with alpha (the last band) the colour is the alpha-weighted mean, which is the
 * premultiplied mean divided by the mean alpha. */
static void
halve_row(const VipsPel *top, const VipsPel *bottom, VipsPel *out, int width, int bands, int pair, int alpha)
{
    for (int x = 0; x < width; x++) {
        const VipsPel *a = top + (size_t) x * pair * 2, *b = a + pair;
        const VipsPel *c = bottom + (size_t) x * pair * 2, *d = c + pair;
        VipsPel *o = out + (size_t) x * bands;
        if (!alpha) {
            for (int k = 0; k < bands; k++) o[k] = (VipsPel) ((a[k] + b[k] + c[k] + d[k] + 2) >> 2);
            continue;
        }
        int last = bands - 1;
        unsigned weight = (unsigned) a[last] + b[last] + c[last] + d[last];
        for (int k = 0; k < last; k++) {
            unsigned sum = a[k] * a[last] + b[k] * b[last] + c[k] * c[last] + d[k] * d[last];
            o[k] = weight ? (VipsPel) ((sum + weight / 2) / weight) : 0;
        }
        o[last] = (VipsPel) ((weight + 2) >> 2);
    }
}

/* The image at half its size, rounded down but never below one pixel: each pixel the mean of a
 * 2x2 block (alpha-weighted when there is alpha; a 2x1 or 1x2 block along a side one pixel
 * long), as a JPEG decoder shrinking on load averages its blocks. A ladder step below the decoded
 * ones is the step above it halved. 8-bit input; read in strips, so a sequential decode streams
 * through without being held whole; metadata carried over. */
int
wc_halve(WCImage *in, WCImage **out)
{
    int in_width = vips_image_get_width(in), in_height = vips_image_get_height(in);
    int width = VIPS_MAX(1, in_width / 2), height = VIPS_MAX(1, in_height / 2);
    int bands = vips_image_get_bands(in), alpha = vips_image_hasalpha(in);
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR) {
        vips_error("halve", "%s", "needs an 8-bit image");
        return -1;
    }
    int pair = in_width > 1 ? bands : 0, rows_per_row = in_height > 1 ? 2 : 1;
    VipsImage *image = vips_image_new_memory();
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) {
        g_object_unref(image);
        return -1;
    }
    image->Xsize = width;
    image->Ysize = height;
    VipsRegion *region = vips_region_new(in);
    if (!region) {
        g_object_unref(image);
        return -1;
    }
    VipsPel *line = g_malloc((size_t) width * bands);
    int status = vips_image_write_prepare(image);
    const int strip = 32; /* output rows per read */
    for (int y = 0; status == 0 && y < height; y += strip) {
        int rows = VIPS_MIN(strip, height - y);
        VipsRect rect = { 0, rows_per_row * y, in_width > 1 ? 2 * width : 1, rows_per_row * rows };
        status = vips_region_prepare(region, &rect);
        for (int row = 0; status == 0 && row < rows; row++) {
            int first = rows_per_row * (y + row);
            halve_row(VIPS_REGION_ADDR(region, 0, first), VIPS_REGION_ADDR(region, 0, first + rows_per_row - 1),
                      line, width, bands, pair, alpha);
            status = vips_image_write_line(image, y + row, line);
        }
    }
    g_free(line);
    g_object_unref(region);
    if (status) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
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
