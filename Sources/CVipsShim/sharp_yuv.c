/* Sharp RGB-to-YUV 4:2:0 for lossy WebP, eight lanes wide (x86-64 with AVX2).
 *
 * libwebp's sharp conversion (libsharpyuv, used by WebPPictureSharpARGBToYUVA in libwebp 1.2 and
 * later; BSD licence, https://chromium.googlesource.com/webm/libwebp, sharpyuv/) refines the Y
 * plane and the subsampled U/V planes in a few iterations, so that the image upsampled from them
 * has the source's luminance computed in linear light: colour edges stay sharp. The algorithm is
 * written there for clarity, with scalar table lookups per pixel; a lossy WebP search converts
 * every variant once, and that conversion cost about as much as an encode. This is the same
 * algorithm for 8-bit input and output with the WebP matrix, with the same integer arithmetic, so
 * its planes are the same bytes (the test suite compares the two), in about a quarter of the time.
 *
 * Values are carried with two extra bits (10-bit "gamma" values); the gamma tables are libsharpyuv's
 * (ITU-R BT.709 transfer, 1025 and 513 entries), the linear-to-gamma one stored as base and step.
 */
#include "warmcache_vips.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIDE __attribute__((target("avx2")))

enum { kBits = 10, kMax = (1 << kBits) - 1 };  /* 8-bit RGB carried with 2 more bits */

static uint32_t g2l[1024 + 2];   /* gamma (10 bits) to linear (16 bits) */
static uint32_t l2g[512 + 2];    /* linear to gamma: entry i holds the 10-bit gamma value at i and, in its
                                    top 16 bits, the step to entry i + 1 (interpolated in linear_to_gamma) */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void
init_tables(void)
{
    const double a = 0.09929682680944, thresh = 0.018053968510807, gamma = 1. / 0.45;
    const double final_scale = 1 << 16;
    static uint32_t raw[512 + 2];
    for (int v = 0; v <= 1024; ++v) {
        const double g = (1. / 1024) * v;
        const double value = g <= thresh * 4.5 ? g / 4.5 : pow((1. / (1. + a)) * (g + a), gamma);
        g2l[v] = (uint32_t)(value * final_scale + .5);
    }
    g2l[1025] = g2l[1024];
    for (int v = 0; v <= 512; ++v) {
        const double g = (1. / 512) * v;
        const double value = g <= thresh ? 4.5 * g : (1. + a) * pow(g, 1. / gamma) - a;
        raw[v] = (uint32_t)(final_scale * value + 0.5);
    }
    raw[513] = raw[512];
    for (int v = 0; v <= 512; ++v) {
        const uint32_t v0 = raw[v] >> 6, v1 = raw[v + 1] >> 6;
        l2g[v] = v0 | ((v1 - v0) << 16);
    }
    l2g[513] = l2g[512];
}

WIDE static inline uint32_t linear_to_gamma(uint32_t value)
{
    const uint32_t e = l2g[value >> 7];
    return (e & 0xffff) + ((((e >> 16) * (value & 127)) + 64) >> 7);
}

WIDE static inline int gray(int r, int g, int b) { return (13933 * r + 46871 * g + 4732 * b + 32768) >> 16; }
WIDE static inline uint32_t gray_linear(uint32_t r, uint32_t g, uint32_t b)
{
    return (13933u * r + 46871u * g + 4732u * b + 32768u) >> 16;
}
WIDE static inline uint16_t clip10(int v) { return v < 0 ? 0 : v > kMax ? kMax : (uint16_t) v; }

WIDE static inline __m256i linear_to_gamma8(__m256i value)
{
    const __m256i e = _mm256_i32gather_epi32((const int *) l2g, _mm256_srli_epi32(value, 7), 4);
    const __m256i v0 = _mm256_and_si256(e, _mm256_set1_epi32(0xffff));
    const __m256i d = _mm256_srli_epi32(e, 16);
    const __m256i x = _mm256_and_si256(value, _mm256_set1_epi32(127));
    return _mm256_add_epi32(v0, _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(d, x), _mm256_set1_epi32(64)), 7));
}

WIDE static inline __m256i gray8(__m256i r, __m256i g, __m256i b)
{
    __m256i sum = _mm256_add_epi32(_mm256_mullo_epi32(r, _mm256_set1_epi32(13933)),
                                   _mm256_mullo_epi32(g, _mm256_set1_epi32(46871)));
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(b, _mm256_set1_epi32(4732)));
    return _mm256_srli_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(32768)), 16);
}

WIDE static inline __m256i load8u16(const uint16_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *) p)); }
WIDE static inline __m128i pack8(__m256i v)   /* eight 32-bit values (in 16-bit range) to eight 16-bit */
{
    return _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}
WIDE static inline __m256i g2l8(__m256i index) { return _mm256_i32gather_epi32((const int *) g2l, index, 4); }

/* Gamma values (10 bits) to linear light, looked up once for both uses below. */
WIDE static void
to_linear(const uint16_t *src, uint32_t *linear, int count)
{
    int i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_si256((__m256i *)(linear + i), g2l8(load8u16(src + i)));
    for (; i < count; ++i)
        linear[i] = g2l[src[i]];
}

/* W of each pixel of a row (three planes of w linear values): its luminance, back in gamma. */
WIDE static void
update_w(const uint32_t *linear, uint16_t *dst, int w)
{
    int i = 0;
    for (; i + 8 <= w; i += 8) {
        const __m256i r = _mm256_loadu_si256((const __m256i *)(linear + i));
        const __m256i g = _mm256_loadu_si256((const __m256i *)(linear + w + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(linear + 2 * w + i));
        const __m256i y = linear_to_gamma8(gray8(r, g, b));
        _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1)));
    }
    for (; i < w; ++i)
        dst[i] = (uint16_t) linear_to_gamma(gray_linear(linear[i], linear[w + i], linear[2 * w + i]));
}

/* The chroma of each 2x2 block of two rows: R, G, B averaged in linear light, back in gamma,
 * minus their luminance W. */
WIDE static void
update_chroma(const uint32_t *linear1, const uint32_t *linear2, int16_t *dst, int uv_w)
{
    const int w = 2 * uv_w;
    int i = 0;
    for (; i + 8 <= uv_w; i += 8) {
        __m256i c[3];
        for (int k = 0; k < 3; ++k) {
            const uint32_t *p1 = linear1 + k * w + 2 * i, *p2 = linear2 + k * w + 2 * i;
            const __m256i low = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *) p1),
                                                 _mm256_loadu_si256((const __m256i *) p2));
            const __m256i high = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(p1 + 8)),
                                                  _mm256_loadu_si256((const __m256i *)(p2 + 8)));
            __m256i sum = _mm256_permute4x64_epi64(_mm256_hadd_epi32(low, high), 0xD8);
            sum = _mm256_srli_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(2)), 2);
            c[k] = linear_to_gamma8(sum);
        }
        const __m256i W = gray8(c[0], c[1], c[2]);
        for (int k = 0; k < 3; ++k)
            _mm_storeu_si128((__m128i *)(dst + k * uv_w + i), pack8(_mm256_sub_epi32(c[k], W)));
    }
    for (; i < uv_w; ++i) {
        int c[3];
        for (int k = 0; k < 3; ++k) {
            const uint32_t *p1 = linear1 + k * w + 2 * i, *p2 = linear2 + k * w + 2 * i;
            c[k] = (int) linear_to_gamma((p1[0] + p1[1] + p2[0] + p2[1] + 2) >> 2);
        }
        const int W = gray(c[0], c[1], c[2]);
        dst[i] = (int16_t)(c[0] - W);
        dst[uv_w + i] = (int16_t)(c[1] - W);
        dst[2 * uv_w + i] = (int16_t)(c[2] - W);
    }
}

/* W of both rows of a pair (rows: 6w gamma values, two rows of three planes) and their chroma. */
WIDE static void
update_rows(const uint16_t *rows, uint32_t *linear, uint16_t *y, int16_t *uv, int w)
{
    to_linear(rows, linear, 6 * w);
    update_w(linear, y, w);
    update_w(linear + 3 * w, y + w, w);
    update_chroma(linear, linear + 3 * w, uv, w >> 1);
}

WIDE static void
import_row(const uint8_t *rgb, int bands, int width, uint16_t *dst)
{
    const int w = (width + 1) & ~1;
    for (int i = 0; i < width; ++i) {
        dst[i] = (uint16_t)(rgb[bands * i] << 2);
        dst[w + i] = (uint16_t)(rgb[bands * i + 1] << 2);
        dst[2 * w + i] = (uint16_t)(rgb[bands * i + 2] << 2);
    }
    if (width & 1) {
        dst[width] = dst[width - 1]; dst[w + width] = dst[w + width - 1]; dst[2 * w + width] = dst[2 * w + width - 1];
    }
}

WIDE static inline uint16_t filter2(int a, int b, int w0) { return clip10(((a * 3 + b + 2) >> 2) + w0); }

/* One upsampled row of one plane: out[1 .. 2·len] from uv rows a (this) and b (the neighbour). */
WIDE static void
filter_row(const int16_t *a, const int16_t *b, int len, const uint16_t *best_y, uint16_t *out)
{
    int i = 0;
    const __m256i eight = _mm256_set1_epi16(8), three = _mm256_set1_epi16(3), nine = _mm256_set1_epi16(9);
    const __m256i zero = _mm256_setzero_si256(), max = _mm256_set1_epi16(kMax);
    for (; i + 16 <= len; i += 16) {
        const __m256i a0 = _mm256_loadu_si256((const __m256i *)(a + i)), a1 = _mm256_loadu_si256((const __m256i *)(a + i + 1));
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)(b + i)), b1 = _mm256_loadu_si256((const __m256i *)(b + i + 1));
        const __m256i v0 = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(a0, nine),
            _mm256_mullo_epi16(_mm256_add_epi16(a1, b0), three)), _mm256_add_epi16(b1, eight)), 4);
        const __m256i v1 = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(a1, nine),
            _mm256_mullo_epi16(_mm256_add_epi16(a0, b1), three)), _mm256_add_epi16(b0, eight)), 4);
        const __m256i low = _mm256_unpacklo_epi16(v0, v1), high = _mm256_unpackhi_epi16(v0, v1);
        const __m256i first = _mm256_permute2x128_si256(low, high, 0x20), second = _mm256_permute2x128_si256(low, high, 0x31);
        const __m256i y0 = _mm256_loadu_si256((const __m256i *)(best_y + 2 * i));
        const __m256i y1 = _mm256_loadu_si256((const __m256i *)(best_y + 2 * i + 16));
        _mm256_storeu_si256((__m256i *)(out + 2 * i), _mm256_min_epi16(_mm256_max_epi16(_mm256_add_epi16(y0, first), zero), max));
        _mm256_storeu_si256((__m256i *)(out + 2 * i + 16), _mm256_min_epi16(_mm256_max_epi16(_mm256_add_epi16(y1, second), zero), max));
    }
    for (; i < len; ++i) {
        const int a0 = a[i], a1 = a[i + 1], b0 = b[i], b1 = b[i + 1];
        out[2 * i] = clip10(best_y[2 * i] + ((a0 * 9 + a1 * 3 + b0 * 3 + b1 + 8) >> 4));
        out[2 * i + 1] = clip10(best_y[2 * i + 1] + ((a1 * 9 + a0 * 3 + b1 * 3 + b0 + 8) >> 4));
    }
}

WIDE static void
interpolate_rows(const uint16_t *best_y, const int16_t *prev, const int16_t *cur, const int16_t *next, int w,
                 uint16_t *out1, uint16_t *out2)
{
    const int uv_w = w >> 1, len = (w - 1) >> 1;
    for (int k = 0; k < 3; ++k) {
        out1[0] = filter2(cur[0], prev[0], best_y[0]);
        out2[0] = filter2(cur[0], next[0], best_y[w]);
        filter_row(cur, prev, len, best_y + 1, out1 + 1);
        filter_row(cur, next, len, best_y + w + 1, out2 + 1);
        out1[w - 1] = filter2(cur[uv_w - 1], prev[uv_w - 1], best_y[w - 1]);
        out2[w - 1] = filter2(cur[uv_w - 1], next[uv_w - 1], best_y[2 * w - 1]);
        out1 += w; out2 += w; prev += uv_w; cur += uv_w; next += uv_w;
    }
}

/* best_y += target_y - rgb_y, clipped; returns the sum of the differences' magnitudes. */
WIDE static uint64_t
update_y(const uint16_t *target, const uint16_t *rgb, uint16_t *best, int len)
{
    int i = 0;
    const __m256i zero = _mm256_setzero_si256(), max = _mm256_set1_epi16(kMax), ones = _mm256_set1_epi16(1);
    __m256i sums = zero;
    for (; i + 16 <= len; i += 16) {
        const __m256i d = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(target + i)),
                                           _mm256_loadu_si256((const __m256i *)(rgb + i)));
        const __m256i y = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(best + i)), d);
        _mm256_storeu_si256((__m256i *)(best + i), _mm256_min_epi16(_mm256_max_epi16(y, zero), max));
        sums = _mm256_add_epi32(sums, _mm256_madd_epi16(_mm256_abs_epi16(d), ones));
    }
    uint32_t lanes[8];
    _mm256_storeu_si256((__m256i *) lanes, sums);
    uint64_t diff = 0;
    for (int k = 0; k < 8; ++k) diff += lanes[k];
    for (; i < len; ++i) {
        const int d = (int) target[i] - (int) rgb[i];
        best[i] = clip10(best[i] + d);
        diff += (uint64_t) abs(d);
    }
    return diff;
}

WIDE static void
update_uv(const int16_t *target, const int16_t *rgb, int16_t *best, int len)
{
    int i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m256i d = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(target + i)),
                                           _mm256_loadu_si256((const __m256i *)(rgb + i)));
        _mm256_storeu_si256((__m256i *)(best + i), _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(best + i)), d));
    }
    for (; i < len; ++i) best[i] = (int16_t)(best[i] + (target[i] - rgb[i]));
}

WIDE static inline uint8_t clip8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v; }

/* Returns 1 on success, 0 when out of memory. */
WIDE int
wc_sharp_yuv_wide(const uint8_t *rgb, int bands, int stride, int width, int height, uint8_t *y_out, int y_stride,
          uint8_t *u_out, uint8_t *v_out, int uv_stride)
{
    pthread_once(&tables_once, init_tables);
    const int w = (width + 1) & ~1, h = (height + 1) & ~1, uv_w = w >> 1, uv_h = h >> 1;
    uint16_t *tmp = malloc(sizeof(uint16_t) * 6 * w);
    uint16_t *best_y_base = malloc(sizeof(uint16_t) * w * h), *target_y_base = malloc(sizeof(uint16_t) * w * h);
    uint16_t *best_rgb_y = malloc(sizeof(uint16_t) * 2 * w);
    int16_t *best_uv_base = malloc(sizeof(int16_t) * 3 * uv_w * uv_h);
    int16_t *target_uv_base = malloc(sizeof(int16_t) * 3 * uv_w * uv_h);
    int16_t *best_rgb_uv = malloc(sizeof(int16_t) * 3 * uv_w);
    uint32_t *linear = malloc(sizeof(uint32_t) * 6 * w);
    int ok = tmp && best_y_base && target_y_base && best_rgb_y && best_uv_base && target_uv_base && best_rgb_uv && linear;
    if (!ok) goto end;
    uint16_t *src1 = tmp, *src2 = tmp + 3 * w;
    {
        uint16_t *best_y = best_y_base, *target_y = target_y_base;
        int16_t *best_uv = best_uv_base, *target_uv = target_uv_base;
        for (int j = 0; j < height; j += 2) {
            import_row(rgb + (size_t) j * stride, bands, width, src1);
            if (j + 1 < height) import_row(rgb + (size_t)(j + 1) * stride, bands, width, src2);
            else memcpy(src2, src1, sizeof(uint16_t) * 3 * w);
            for (int i = 0; i < w; ++i) {
                best_y[i] = (uint16_t) gray(src1[i], src1[w + i], src1[2 * w + i]);
                best_y[w + i] = (uint16_t) gray(src2[i], src2[w + i], src2[2 * w + i]);
            }
            update_rows(tmp, linear, target_y, target_uv, w);
            memcpy(best_uv, target_uv, sizeof(int16_t) * 3 * uv_w);
            best_y += 2 * w; target_y += 2 * w; best_uv += 3 * uv_w; target_uv += 3 * uv_w;
        }
    }
    uint64_t previous_diff = ~(uint64_t) 0;
    const uint64_t threshold = (uint64_t)(3.0 * w * h);
    for (int iteration = 0; iteration < 4; ++iteration) {
        const int16_t *cur = best_uv_base, *prev = best_uv_base;
        uint16_t *best_y = best_y_base, *target_y = target_y_base;
        int16_t *best_uv = best_uv_base, *target_uv = target_uv_base;
        uint64_t diff = 0;
        for (int j = 0; j < h; j += 2) {
            const int16_t *next = cur + (j < h - 2 ? 3 * uv_w : 0);
            interpolate_rows(best_y, prev, cur, next, w, src1, src2);
            prev = cur; cur = next;
            update_rows(tmp, linear, best_rgb_y, best_rgb_uv, w);
            diff += update_y(target_y, best_rgb_y, best_y, 2 * w);
            update_uv(target_uv, best_rgb_uv, best_uv, 3 * uv_w);
            best_y += 2 * w; target_y += 2 * w; best_uv += 3 * uv_w; target_uv += 3 * uv_w;
        }
        if (iteration > 0) {
            if (diff < threshold) break;
            if (diff > previous_diff) break;
        }
        previous_diff = diff;
    }
    /* The final conversion with the WebP matrix at two more bits of precision. */
    {
        const uint16_t *best_y = best_y_base;
        const int16_t *best_uv = best_uv_base;
        for (int j = 0; j < height; ++j) {
            for (int i = 0; i < width; ++i) {
                const int W = best_y[i], off = i >> 1;
                const int r = best_uv[off] + W, g = best_uv[uv_w + off] + W, b = best_uv[2 * uv_w + off] + W;
                y_out[(size_t) j * y_stride + i] = clip8((16839 * r + 33059 * g + 6420 * b + (16 << 18) + (1 << 17)) >> 18);
            }
            best_y += w;
            best_uv += (j & 1) * 3 * uv_w;
        }
        best_uv = best_uv_base;
        for (int j = 0; j < uv_h; ++j) {
            for (int i = 0; i < uv_w; ++i) {
                const int r = best_uv[i], g = best_uv[uv_w + i], b = best_uv[2 * uv_w + i];
                u_out[(size_t) j * uv_stride + i] = clip8((-9719 * r - 19081 * g + 28800 * b + (128 << 18) + (1 << 17)) >> 18);
                v_out[(size_t) j * uv_stride + i] = clip8((28800 * r - 24116 * g - 4684 * b + (128 << 18) + (1 << 17)) >> 18);
            }
            best_uv += 3 * uv_w;
        }
    }
end:
    free(tmp); free(best_y_base); free(target_y_base); free(best_rgb_y); free(best_uv_base); free(target_uv_base);
    free(best_rgb_uv); free(linear);
    return ok;
}

#else

int
wc_sharp_yuv_wide(const uint8_t *rgb, int bands, int stride, int width, int height, uint8_t *y_out, int y_stride,
                  uint8_t *u_out, uint8_t *v_out, int uv_stride)
{
    return 0;
}

#endif
