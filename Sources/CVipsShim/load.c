/* Loading: format sniffing, header-only opening, shrink-on-load decoding. */
#include <string.h>
#include <vips/vips.h>
#include "warmcache_vips.h"

static VipsFailOn
fail_on_level(int level)
{
    switch (level) {
    case WC_FAIL_ON_TRUNCATED: return VIPS_FAIL_ON_TRUNCATED;
    case WC_FAIL_ON_ERROR: return VIPS_FAIL_ON_ERROR;
    case WC_FAIL_ON_WARNING: return VIPS_FAIL_ON_WARNING;
    default: return VIPS_FAIL_ON_NONE;
    }
}

/* Whether bytes may be an image that only a module reads (so the modules are loaded before
 * libvips looks for a loader): an ISO base media file (HEIF: HEIC, AVIF) or JPEG XL, a bare
 * codestream or its container. Anything else is read by libvips itself, or refused. */
static int
may_need_module(const unsigned char *bytes, size_t length)
{
    static const unsigned char jxl_container[] = { 0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A };
    if (length >= 8 && memcmp(bytes + 4, "ftyp", 4) == 0)
        return 1;
    if (length >= 2 && bytes[0] == 0xFF && bytes[1] == 0x0A)
        return 1;
    return length >= sizeof jxl_container && memcmp(bytes, jxl_container, sizeof jxl_container) == 0;
}

/* Called by every function here that hands bytes to libvips' loaders. */
static void
load_modules_for(const void *data, size_t length)
{
    if (may_need_module(data, length))
        wc_vips_load_modules();
}

const char *
wc_find_loader(const void *data, size_t length)
{
    load_modules_for(data, length);
    /* On failure the error buffer is left for the caller to take (and clear) under its lock:
     * clearing here could wipe another thread's message. */
    return vips_foreign_find_load_buffer(data, length);
}

int
wc_open_header(const void *data, size_t length, int fail_on, WCImage **out)
{
    load_modules_for(data, length);
    *out = vips_image_new_from_buffer(data, length, "", "fail_on", fail_on_level(fail_on), NULL);
    return *out ? 0 : -1;
}

/* Loader options for a fail level. thumbnail_buffer in 8.14 does not forward its own fail_on
 * option to the loader, so strictness travels in the loader's option string instead. */
static const char *
loader_options(int level)
{
    switch (level) {
    case WC_FAIL_ON_TRUNCATED: return "[fail_on=truncated]";
    case WC_FAIL_ON_ERROR: return "[fail_on=error]";
    case WC_FAIL_ON_WARNING: return "[fail_on=warning]";
    default: return "";
    }
}

/* A JPEG decoded at 1/jpeg_shrink of its size, then sized like vips_thumbnail_buffer would
 * (orientation, colour, exact size): the same pipeline with the loader's shrink chosen here. */
static int
thumbnail_shrunk_jpeg(void *bytes, size_t length, int width, int height, int fail_on,
                      const char *export_profile, int jpeg_shrink, WCImage **out)
{
    VipsImage *loaded;
    if (vips_jpegload_buffer(bytes, length, &loaded, "shrink", jpeg_shrink, "access", VIPS_ACCESS_SEQUENTIAL,
                             "fail_on", fail_on_level(fail_on), NULL))
        return -1;
    int status = export_profile
        ? vips_thumbnail_image(loaded, out, width, "height", height, "size", VIPS_SIZE_FORCE,
                               "export_profile", export_profile, NULL)
        : vips_thumbnail_image(loaded, out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL);
    g_object_unref(loaded);
    return status;
}

int
wc_thumbnail(const void *data, size_t length, int width, int height, int fail_on,
             const char *export_profile, int jpeg_shrink, WCImage **out)
{
    /* thumbnail_buffer only reads the buffer; its prototype lacks the const. */
    void *bytes = (void *) data;
    load_modules_for(data, length);
    if (jpeg_shrink > 1)
        return thumbnail_shrunk_jpeg(bytes, length, width, height, fail_on, export_profile, jpeg_shrink, out);
    if (export_profile)
        return vips_thumbnail_buffer(bytes, length, out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                     "option_string", loader_options(fail_on), "export_profile", export_profile,
                                     NULL);
    return vips_thumbnail_buffer(bytes, length, out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                 "option_string", loader_options(fail_on), NULL);
}

int
wc_load(const void *data, size_t length, WCImage **out)
{
    load_modules_for(data, length);
    VipsImage *lazy = vips_image_new_from_buffer(data, length, "", NULL);
    if (!lazy)
        return -1;
    *out = vips_image_copy_memory(lazy);
    g_object_unref(lazy);
    return *out ? 0 : -1;
}
