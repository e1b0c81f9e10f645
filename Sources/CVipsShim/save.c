/* Encoders: each writes a new buffer to *data (release with wc_free). */
#include <vips/vips.h>
#include "warmcache_vips.h"

static VipsForeignSubsample
subsample_mode(int mode)
{
    switch (mode) {
    case WC_SUBSAMPLE_ON: return VIPS_FOREIGN_SUBSAMPLE_ON;
    case WC_SUBSAMPLE_OFF: return VIPS_FOREIGN_SUBSAMPLE_OFF;
    default: return VIPS_FOREIGN_SUBSAMPLE_AUTO;
    }
}

int
wc_save_jpeg(WCImage *in, const WCSaveOptions *o, void **data, size_t *length)
{
    return vips_jpegsave_buffer(in, data, length, "Q", o->quality, "interlace", o->interlace,
                                "optimize_coding", TRUE, "subsample_mode", subsample_mode(o->subsample),
                                "strip", o->strip, NULL);
}

int
wc_save_png(WCImage *in, const WCSaveOptions *o, void **data, size_t *length)
{
    return vips_pngsave_buffer(in, data, length, "compression", o->effort, "interlace", o->interlace,
                               "palette", o->palette, "Q", o->quality, "strip", o->strip, NULL);
}

int
wc_save_webp(WCImage *in, const WCSaveOptions *o, void **data, size_t *length)
{
    return vips_webpsave_buffer(in, data, length, "Q", o->quality, "lossless", o->lossless,
                                "effort", o->effort, "smart_subsample", o->smart_subsample,
                                "strip", o->strip, NULL);
}

/* wc_save_heif: heif.c. */

int
wc_save_jxl(WCImage *in, const WCSaveOptions *o, void **data, size_t *length)
{
    wc_vips_load_modules();
    return vips_jxlsave_buffer(in, data, length, "Q", o->quality, "lossless", o->lossless,
                               "effort", o->effort, "strip", o->strip, NULL);
}

int
wc_save_gif(WCImage *in, const WCSaveOptions *o, void **data, size_t *length)
{
    return vips_gifsave_buffer(in, data, length, "effort", o->effort, "interlace", o->interlace,
                               "strip", o->strip, NULL);
}
