/*
 * warmcache_vips.h — fixed-argument wrappers around libvips' variadic C API.
 *
 * Swift cannot call C variadic functions such as vips_thumbnail_buffer(..., NULL), so every
 * libvips call WarmCache needs is wrapped here with plain, fixed arguments. This header does
 * not include glib or vips headers: images are an opaque `WCImage` pointer and every other
 * argument is a plain C type, so Swift never needs the glib headers.
 *
 * Conventions:
 *  - Functions returning `int` return 0 on success and -1 on failure; on failure libvips has
 *    written a message to its error buffer (read it with wc_error_take()).
 *  - Functions producing an image write a new reference to `*out`; release it with wc_unref().
 *    Input images are never consumed.
 *  - Buffers returned by the library are released with wc_free().
 */
#ifndef WARMCACHE_VIPS_H
#define WARMCACHE_VIPS_H

#include <stddef.h>
#include <stdint.h>

struct _VipsImage;
typedef struct _VipsImage WCImage;

/* MARK: Runtime */

/** Initialises libvips exactly once per process (thread-safe); returns 0 on success.
 *  Also silences libvips warnings on stderr (like VIPS_WARNING=0). Where libvips has a module
 *  folder, no module is loaded at start: only the HEIF and JPEG XL ones, on first need. */
int wc_vips_init(void);
/** The module folder the used modules are loaded from, or NULL if libvips loaded its own
 *  (built without modules, or their folder was not found beside it). */
const char *wc_vips_module_folder(void);
/** Loads the HEIF and JPEG XL modules unless they are (thread-safe); returns 1 if this call
 *  loaded them. The loaders and savers that need them call it; so does a failed operation probe. */
int wc_vips_load_modules(void);
/** Whether the modules are loaded (or libvips loaded its own). */
int wc_vips_modules_loaded(void);
/** How many modules the shim loads itself (HEIF, JPEG XL), and the name of each (`vips-heif`). */
int wc_vips_module_count(void);
const char *wc_vips_module_name(int index);
/** Loads the modules if needed, then says of module `index` whether it loaded (1), the file found
 *  for it in wc_vips_module_folder() (NULL: none there) and, if opening it failed, why. Meaningless
 *  when wc_vips_module_folder() is NULL (libvips loaded its own). */
int wc_vips_module_status(int index, const char **file, const char **error);
/** The file libvips would load for module `name` (`vips-heif`) from `folder`: `<name>.<suffix>` with
 *  any suffix (`.so` on Linux, `.dylib` from libvips 8.15 on macOS); NULL if none. Free with wc_free. */
char *wc_vips_find_module(const char *folder, const char *name);
/** Threads per libvips pipeline and operation-cache limits (process-wide settings). */
void wc_vips_configure(int threads_per_image, int cache_max_operations, size_t cache_max_bytes,
                       int cache_max_files);
/** The libvips version as "major.minor.micro" (static string). */
const char *wc_vips_version(void);
/** 1 if libvips runs its vectorised (SIMD) code paths: liborc before 8.15, highway after. */
int wc_vips_vector_enabled(void);
/** Turns libvips' vectorised code paths on or off (process-wide; VIPS_NOVECTOR=1 turns them off
 *  at start-up). Operations built afterwards use the plain C paths. */
void wc_vips_set_vector_enabled(int enabled);
/** The version of the liborc loaded in this process ("0.4.33"), or NULL when none is loaded. */
const char *wc_orc_version(void);
/** 1 if an operation with this nickname (e.g. "heifsave_buffer") exists in this libvips. */
int wc_vips_has_operation(const char *nickname);
/** Limits glibc malloc arenas (fewer arenas: less fragmentation under many threads) and fixes
 *  the mmap threshold at 1 MB so large pixel buffers go back to the system when freed; a no-op
 *  on other C libraries. */
void wc_limit_malloc_arenas(int arenas);
/** Gives the memory malloc keeps after frees back to the system (glibc's malloc_trim, Apple's
 *  malloc_zone_pressure_relief): an imaging process calls it after a large render, so that it
 *  holds its idle size while it waits. */
void wc_release_freed_memory(void);

/** Copies and clears libvips' error buffer (process-wide); release with wc_free(). Never NULL. */
char *wc_error_take(void);
/** Releases a buffer returned by this library. */
void wc_free(void *pointer);
/** Releases an image reference (NULL is ignored). */
void wc_unref(WCImage *image);

/* MARK: Image properties */

enum {
    WC_SPACE_OTHER = 0, WC_SPACE_SRGB = 1, WC_SPACE_BW = 2, WC_SPACE_RGB16 = 3, WC_SPACE_GREY16 = 4,
    WC_SPACE_CMYK = 5
};

int wc_image_width(const WCImage *image);
int wc_image_height(const WCImage *image);
int wc_image_bands(const WCImage *image);
int wc_image_has_alpha(WCImage *image);
/** One of the WC_SPACE_* values. */
int wc_image_space(const WCImage *image);
/** 1 if pixels are 8-bit unsigned. */
int wc_image_is_uchar(const WCImage *image);
int wc_image_has_icc(const WCImage *image);
int wc_image_icc_is_srgb(const WCImage *image);
int wc_icc_is_srgb(const void *data, size_t length);
/** Number of pages (frames) the file holds, 1 for a still image. */
int wc_image_pages(WCImage *image);
/** EXIF orientation 1–8 (1 when absent). */
int wc_image_orientation(WCImage *image);
/** 1 if the image carries this metadata field (e.g. "exif-data", "xmp-data"). */
int wc_image_has_field(const WCImage *image, const char *name);

/* MARK: Loading */

enum { WC_FAIL_ON_NONE = 0, WC_FAIL_ON_TRUNCATED = 1, WC_FAIL_ON_ERROR = 2, WC_FAIL_ON_WARNING = 3 };

/** The loader libvips would use for these bytes (e.g. "VipsForeignLoadJpegBuffer"), or NULL. */
const char *wc_find_loader(const void *data, size_t length);

/** Opens an image lazily: reads the header only. The bytes must outlive the image. */
int wc_open_header(const void *data, size_t length, int fail_on, WCImage **out);
/** "av1", "hevc", ... for HEIF files (copy into `buffer`), 0 on success, -1 if absent. */
int wc_heif_compression(WCImage *image, char *buffer, size_t capacity);

/** Decodes and sizes in one pass: shrink-on-load to exactly width x height (after applying the
 *  EXIF orientation), first page only. `export_profile` ("srgb") converts images with an
 *  embedded profile; NULL keeps them in their own profile's space. CMYK always becomes RGB.
 *  `jpeg_shrink` 2, 4 or 8 decodes a JPEG at that fraction of its size (libjpeg's scaled DCT)
 *  before resampling; 1 leaves the choice to libvips, which keeps a factor of two in hand. */
int wc_thumbnail(const void *data, size_t length, int width, int height, int fail_on,
                 const char *export_profile, int jpeg_shrink, WCImage **out);

/** Fully decodes the first page (used to check outputs). */
int wc_load(const void *data, size_t length, WCImage **out);

/* MARK: Geometry and colour */

int wc_resize(WCImage *in, double hscale, double vscale, WCImage **out);
/* Half the size, rounded down, each pixel the mean of a 2x2 block (alpha-weighted with alpha),
 * computed into memory from an 8-bit image (read in strips: a sequential decode streams through). */
int wc_halve(WCImage *in, WCImage **out);
int wc_crop(WCImage *in, int left, int top, int width, int height, WCImage **out);
enum { WC_INTERESTING_ATTENTION = 0, WC_INTERESTING_ENTROPY = 1 };
int wc_smartcrop(WCImage *in, int width, int height, int interesting, WCImage **out);
/** Places `in` at (x, y) on a width x height canvas filled with `background` (one value per band). */
int wc_embed(WCImage *in, int x, int y, int width, int height, const double *background, int count,
             WCImage **out);
/** Composites the alpha band onto `background` (one value per colour band) and drops alpha. */
int wc_flatten(WCImage *in, const double *background, int count, WCImage **out);
/** Converts to WC_SPACE_SRGB, WC_SPACE_BW, WC_SPACE_RGB16 or WC_SPACE_GREY16. */
int wc_colourspace(WCImage *in, int space, WCImage **out);
int wc_cast_uchar(WCImage *in, WCImage **out);
/** Appends an opaque alpha band (255). */
int wc_add_alpha(WCImage *in, WCImage **out);
/** Gaussian blur; images with alpha are blurred premultiplied so edges keep their colour. */
int wc_gaussblur(WCImage *in, double sigma, WCImage **out);
/** Multiplies the alpha by an 8-bit coverage mask of the image's size (adds alpha if absent). */
int wc_apply_alpha_mask(WCImage *in, const uint8_t *mask, int width, int height, WCImage **out);

/* MARK: Memory and metadata */

/** Computes the pipeline into memory so it can be read (encoded) many times. NULL on failure. */
WCImage *wc_copy_memory(WCImage *in);
/** A copy without any metadata (EXIF, XMP, IPTC, orientation, comments, ...); the ICC profile
 *  survives when keep_icc is 1. */
int wc_strip_metadata(WCImage *in, int keep_icc, WCImage **out);
/** Writes 8-bit sRGB RGBA pixels (grey and alpha-less images converted); release with wc_free. */
uint8_t *wc_write_rgba8(WCImage *in, size_t *length);
/** An 8-bit image's interleaved pixels, rows without padding (computed into memory first if the
 * image is not there yet); valid while `in` lives. NULL for other formats or on failure. */
const uint8_t *wc_image_pixels(WCImage *in);
/** The pixels as 8-bit sRGB with `bands` bands (3: RGB, 4: RGBA), alpha added as opaque or dropped
 * as needed; free with wc_free. NULL on failure. */
uint8_t *wc_write_pixels8(WCImage *in, int bands, size_t *length);
/** Decodes an encoded image (any loader) to 8-bit sRGB pixels with `bands` bands (3: RGB, 4:
 * RGBA; alpha added as opaque or dropped as needed); free with wc_free. NULL on failure. */
uint8_t *wc_decode_pixels8(const void *data, size_t length, int bands, int *width, int *height, size_t *size);

/* MARK: Encoding */

enum { WC_SUBSAMPLE_AUTO = 0, WC_SUBSAMPLE_ON = 1, WC_SUBSAMPLE_OFF = 2 };

/** Encoder settings; each saver reads the fields that apply to it. */
typedef struct {
    int quality;         /* 1–100 */
    int effort;          /* format-specific effort / compression level */
    int lossless;        /* 0 / 1 */
    int interlace;       /* progressive JPEG, interlaced PNG and GIF */
    int subsample;       /* WC_SUBSAMPLE_* (JPEG, HEIF) */
    int smart_subsample; /* WebP sharp YUV */
    int palette;         /* PNG palette quantisation */
    int strip;           /* drop all metadata */
} WCSaveOptions;

int wc_save_jpeg(WCImage *in, const WCSaveOptions *options, void **data, size_t *length);
int wc_save_png(WCImage *in, const WCSaveOptions *options, void **data, size_t *length);
int wc_save_webp(WCImage *in, const WCSaveOptions *options, void **data, size_t *length);
/** HEIF container: av1 = 1 writes AVIF (AV1, 8-bit), av1 = 0 writes HEIC (HEVC, 8-bit). */
int wc_save_heif(WCImage *in, const WCSaveOptions *options, int av1, void **data, size_t *length);
/** 8-bit pixels (`bands` 3 or 4) after a 4:2:0 round trip through libavif's own RGB/YUV conversions,
 * without compression: what chroma subsampling alone costs an image (alpha kept as it was). Free
 * with wc_free; NULL (with a vips error) on failure. */
uint8_t *wc_avif_chroma_roundtrip8(const uint8_t *pixels, int width, int height, int bands, size_t *length);
/** "libavif 0.11.1 (aom [enc/dec]:v3.6.0, ...)": what writes AVIF, for cache keys. */
void wc_avif_encoder_name(char *buffer, size_t capacity);
/** libaom's speed (cpu-used) for an AVIF effort 0–9: 9 - effort, as libheif maps it (effort 4 is speed 5). */
int wc_avif_speed(int effort);
/** libaom's quantizer 0–63 for a quality 1–100 (libheif's mapping): ((100 - quality) * 63 + 50) / 100. */
int wc_avif_quantizer(int quality);
/** AVIF encoder settings beyond WCSaveOptions: the search speed's libaom options (and, for
 * benchmarks comparing encoder setups, a speed and a mode). */
typedef struct {
    int speed;                 /* libaom cpu-used 0–9; -1: from the effort */
    int single_image;          /* 1: one still image (libaom's all-intra mode); 0: a one-frame sequence */
    const char *codec_options; /* "key=value,..." in libaom's names (tune=ssim, sharpness=2, ...), or NULL */
} WCAvifTuning;
/** AVIF (AV1, 8-bit) through libavif and libaom (avif.c): libaom's all-intra mode, at speed
 * 9 - effort unless the tuning sets one. */
int wc_save_avif_tuned(WCImage *in, const WCSaveOptions *options, const WCAvifTuning *tuning, void **data,
                       size_t *length);
int wc_save_jxl(WCImage *in, const WCSaveOptions *options, void **data, size_t *length);
int wc_save_gif(WCImage *in, const WCSaveOptions *options, void **data, size_t *length);

/* MARK: Lossy WebP searches (libwebp directly) */

/** An image converted to WebP's YUV once, to be encoded at many qualities. */
typedef struct WCWebPPicture WCWebPPicture;
/** Prepares 8-bit RGB (3 bands) or RGBA (4) pixels, rows without padding; sharp_yuv = 1 converts
 * with sharp RGB-to-YUV (webpsave's smart_subsample), with wide = 1 by wc_sharp_yuv_wide where the
 * processor runs it (the same planes). NULL on failure (libvips' error buffer). */
WCWebPPicture *wc_webp_prepare(const uint8_t *pixels, int width, int height, int bands, int sharp_yuv, int wide);
/** libwebp's sharp RGB-to-YUV 4:2:0 conversion (WebP matrix) of 8-bit RGB(A) pixels, eight lanes
 * wide: the same planes as WebPPictureSharpARGBToYUVA. Only where wc_cpu_wide(); 0 when out of memory. */
int wc_sharp_yuv_wide(const uint8_t *rgb, int bands, int stride, int width, int height, uint8_t *y, int y_stride,
                      uint8_t *u, uint8_t *v, int uv_stride);
/** Encodes the prepared picture lossily as webpsave would with these options and `strip`;
 * free `data` with wc_free. 0 on success. */
int wc_webp_encode(const WCWebPPicture *picture, int quality, int effort, void **data, size_t *length);
void wc_webp_free(WCWebPPicture *picture);
/** Decodes WebP bytes to 8-bit RGB (bands 3) or RGBA (4); free with wc_free. NULL on failure. */
uint8_t *wc_webp_decode8(const void *data, size_t length, int bands, int *width, int *height, size_t *size);

/* MARK: JPEG decoding for scoring (libjpeg directly) */

/** Decodes baseline or progressive JPEG bytes (grey or colour) to 8-bit RGB, as libvips' loader
 * would; free with wc_free. NULL on failure (libvips' error buffer). */
uint8_t *wc_jpeg_decode8(const void *data, size_t length, int *width, int *height, size_t *size);
/** Encodes 8-bit RGB pixels (rows without padding) as libvips' jpegsave does with `strip`,
 * optimised Huffman tables and these options (subsample: WC_SUBSAMPLE_*); free `data` with
 * wc_free. 0 on success, else -1 (libvips' error buffer). */
int wc_jpeg_encode8(const uint8_t *pixels, int width, int height, int quality, int progressive, int subsample,
                    void **data, size_t *length);

/* MARK: SSIMULACRA 2 kernels (eight lanes; the same results as the Swift code's four) */

/** Whether this processor runs the eight-lane kernels (x86-64 with AVX2): these below, and the
 * sharp RGB-to-YUV conversion of wc_webp_prepare. */
int wc_cpu_wide(void);
/** One row of linear R, G, B (`stride` floats each) to X, Y, B made positive, the output planes
 * `plane_size` floats apart; m: the opsin matrix by rows, the bias and minus its cube root. */
void wc_xyb_convert8(const float *red, const float *green, const float *blue, float *out_x, long plane_size,
                     long stride, const float *m);
/** One row of the vertical recursive Gaussian over `vectors` groups of four columns. */
void wc_gaussian_columns8(float *state, long vectors, const float *top, const float *bottom, int parity,
                          float *output, const float *coefficients);
/** The horizontal recursive Gaussian of `count` (1-3) statistics of a band of four rows, each a
 * zero-padded row of four-lane vectors; `width` vectors out each. */
void wc_gaussian_rows8(const float *padded0, const float *padded1, const float *padded2, int count, long radius,
                       long width, float *filtered0, float *filtered1, float *filtered2, const float *coefficients);
/** Adds one row's error maps to `sums` (six sums of four lanes: SSIM and its fourth power when
 * `ssim` is set, then ringing, blurring and their fourth powers). */
void wc_pool8(const float *reference_xyb, const float *reference_mean, const float *reference_variance,
              const float *distorted_xyb, const float *distorted_mean, const float *distorted_square,
              const float *product, long vectors, int ssim, float *sums);

/* MARK: Fixture helpers (tests and benchmarks build inputs with these) */

/** An image from 8-bit interleaved pixels (1–4 bands; grey for 1–2 bands, sRGB for 3–4). */
WCImage *wc_image_from_pixels(const uint8_t *pixels, int width, int height, int bands);
/** A copy with an integer metadata field set (e.g. "orientation", "page-height"). */
int wc_set_int(WCImage *in, const char *name, int value, WCImage **out);
/** A copy with a string metadata field set (e.g. "exif-ifd0-Artist"). */
int wc_set_string(WCImage *in, const char *name, const char *value, WCImage **out);
/** Transforms sRGB pixels to a built-in profile ("p3", "cmyk") and embeds that profile. */
int wc_icc_transform(WCImage *in, const char *profile, WCImage **out);
/** Stacks images vertically (frames of an animation when "page-height" is set). */
int wc_join_vertical(WCImage **images, int count, WCImage **out);
/** Reads the pixel at (x, y) into `values` (up to `capacity` bands); returns the band count or -1. */
int wc_getpoint(WCImage *in, int x, int y, double *values, int capacity);

#endif
