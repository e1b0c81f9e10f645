/* Wide-vector kernels of SSIMULACRA 2 for x86-64 processors with AVX2.
 *
 * Each function computes exactly what the portable Swift code computes with four-lane vectors,
 * eight lanes at a time: the same single-precision operations in the same order on every lane,
 * no fused multiply-adds, and sums accumulated in the same order. So a score is the same bit
 * for bit whichever path ran. wc_cpu_wide() says whether this processor runs them.
 */
#include "warmcache_vips.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#pragma clang fp contract(off)

#define WIDE __attribute__((target("avx2")))

/* The XYB conversion, written once for both widths: V is the vector type, P its op prefix. */
#define CUBE_ROOT(NAME, V, P, SI, CAST_I, CAST_F)                                                   \
    WIDE static inline V NAME(V x)                                                                  \
    {                                                                                               \
        SI bits = CAST_I(P##_add_ps(x, P##_set1_ps(1e-12f)));                                       \
        SI quarter = P##_srli_epi32(bits, 2);                                                       \
        SI third = P##_add_epi32(quarter, P##_srli_epi32(quarter, 2));                              \
        third = P##_add_epi32(third, P##_srli_epi32(third, 4));                                     \
        third = P##_add_epi32(third, P##_srli_epi32(third, 8));                                     \
        third = P##_add_epi32(third, P##_srli_epi32(third, 16));                                    \
        V y = CAST_F(P##_sub_epi32(P##_set1_epi32(0x54A2FA8C), third));                             \
        V xThird = P##_mul_ps(x, P##_set1_ps(1.0f / 3.0f));                                         \
        V fourThirds = P##_set1_ps(4.0f / 3.0f);                                                    \
        for (int i = 0; i < 3; i++) {                                                               \
            V y2 = P##_mul_ps(y, y);                                                                \
            y = P##_sub_ps(P##_mul_ps(fourThirds, y), P##_mul_ps(xThird, P##_mul_ps(y2, y2)));      \
        }                                                                                           \
        return P##_mul_ps(x, P##_mul_ps(y, y));                                                     \
    }
CUBE_ROOT(cube_root8, __m256, _mm256, __m256i, _mm256_castps_si256, _mm256_castsi256_ps)
CUBE_ROOT(cube_root4, __m128, _mm, __m128i, _mm_castps_si128, _mm_castsi128_ps)

#define XYB_STEP(V, P, CUBE, CMP_LT)                                                                \
    {                                                                                               \
        V r = P##_loadu_ps(red + x), g = P##_loadu_ps(green + x), b = P##_loadu_ps(blue + x);       \
        V bias = P##_set1_ps(m[9]), zero = P##_setzero_ps(), half = P##_set1_ps(0.5f);              \
        V mixed0 = P##_add_ps(P##_mul_ps(P##_set1_ps(m[0]), r),                                     \
            P##_add_ps(P##_mul_ps(P##_set1_ps(m[1]), g), P##_add_ps(P##_mul_ps(P##_set1_ps(m[2]), b), bias))); \
        V mixed1 = P##_add_ps(P##_mul_ps(P##_set1_ps(m[3]), r),                                     \
            P##_add_ps(P##_mul_ps(P##_set1_ps(m[4]), g), P##_add_ps(P##_mul_ps(P##_set1_ps(m[5]), b), bias))); \
        V mixed2 = P##_add_ps(P##_mul_ps(P##_set1_ps(m[6]), r),                                     \
            P##_add_ps(P##_mul_ps(P##_set1_ps(m[7]), g), P##_add_ps(P##_mul_ps(P##_set1_ps(m[8]), b), bias))); \
        mixed0 = P##_and_ps(mixed0, CMP_LT(zero, mixed0));                                          \
        mixed1 = P##_and_ps(mixed1, CMP_LT(zero, mixed1));                                          \
        mixed2 = P##_and_ps(mixed2, CMP_LT(zero, mixed2));                                          \
        V root = P##_set1_ps(m[10]);                                                                \
        V l = P##_add_ps(CUBE(mixed0), root), mm = P##_add_ps(CUBE(mixed1), root);                  \
        V s = P##_add_ps(CUBE(mixed2), root);                                                       \
        V valueX = P##_mul_ps(half, P##_sub_ps(l, mm)), valueY = P##_mul_ps(half, P##_add_ps(l, mm)); \
        P##_storeu_ps(outX + x, P##_add_ps(P##_mul_ps(valueX, P##_set1_ps(14.0f)), P##_set1_ps(0.42f))); \
        P##_storeu_ps(outY + x, P##_add_ps(valueY, P##_set1_ps(0.01f)));                            \
        P##_storeu_ps(outB + x, P##_add_ps(P##_sub_ps(s, valueY), P##_set1_ps(0.55f)));             \
    }

#define LT8(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define LT4(a, b) _mm_cmplt_ps(a, b)

WIDE void
wc_xyb_convert8(const float *red, const float *green, const float *blue, float *outX, long planeSize,
                long stride, const float *m)
{
    float *outY = outX + planeSize, *outB = outY + planeSize;
    long x = 0;
    for (; x + 8 <= stride; x += 8)
        XYB_STEP(__m256, _mm256, cube_root8, LT8)
    for (; x < stride; x += 4)
        XYB_STEP(__m128, _mm, cube_root4, LT4)
}

/* One step of the recursive Gaussian's three recursions (k = 1, 3, 5), as RecursiveGaussian.step
 * in Swift: y_k = (n2_k · sum − older_k) − d1_k · previous_k; then older_k takes previous_k and
 * previous_k takes y_k. Returns y1 + (y3 + y5). Written once for both widths; n2 and d1 are the
 * coefficients broadcast (once per call of a pass: stores to the rows could alias them). */
#define RECURSION_STEP(NAME, V, P)                                                                  \
    WIDE static inline V NAME(V sum, const V *n2, const V *d1, V *previous, V *older)                \
    {                                                                                               \
        V y[3];                                                                                     \
        for (int k = 0; k < 3; k++) {                                                               \
            y[k] = P##_sub_ps(P##_sub_ps(P##_mul_ps(n2[k], sum), older[k]), P##_mul_ps(d1[k], previous[k])); \
            older[k] = previous[k];                                                                 \
            previous[k] = y[k];                                                                     \
        }                                                                                           \
        return P##_add_ps(y[0], P##_add_ps(y[1], y[2]));                                            \
    }
RECURSION_STEP(recursion8, __m256, _mm256)
RECURSION_STEP(recursion4, __m128, _mm)

/* The vertical pass of one row: the recursions of every column, their state in memory (for each
 * k, two slots a column that alternate between the previous and the older output; the new output
 * overwrites the older), as RecursiveGaussian.ColumnState.advanceRow in Swift. */
#define COLUMN_STEP(V, P, STEP, N2, D1)                                                             \
    {                                                                                               \
        V previousK[3], olderK[3];                                                                  \
        for (int k = 0; k < 3; k++) {                                                               \
            previousK[k] = P##_loadu_ps(previous + 2 * k * floats + o);                             \
            olderK[k] = P##_loadu_ps(older + 2 * k * floats + o);                                   \
        }                                                                                           \
        const V out = STEP(P##_add_ps(P##_loadu_ps(top + o), P##_loadu_ps(bottom + o)), N2, D1, previousK, olderK); \
        for (int k = 0; k < 3; k++)                                                                 \
            P##_storeu_ps(older + 2 * k * floats + o, previousK[k]);                                \
        P##_storeu_ps(output + o, out);                                                             \
    }

WIDE void
wc_gaussian_columns8(float *base, long vectors, const float *top, const float *bottom, int parity, float *output,
                     const float *c)
{
    const long floats = vectors * 4;
    float *previous = base + (long) parity * floats, *older = base + (long) (parity ^ 1) * floats;
    const __m256 n2[3] = {_mm256_set1_ps(c[0]), _mm256_set1_ps(c[1]), _mm256_set1_ps(c[2])};
    const __m256 d1[3] = {_mm256_set1_ps(c[3]), _mm256_set1_ps(c[4]), _mm256_set1_ps(c[5])};
    const __m128 n2Half[3] = {_mm_set1_ps(c[0]), _mm_set1_ps(c[1]), _mm_set1_ps(c[2])};
    const __m128 d1Half[3] = {_mm_set1_ps(c[3]), _mm_set1_ps(c[4]), _mm_set1_ps(c[5])};
    long o = 0;
    for (; o + 8 <= floats; o += 8)
        COLUMN_STEP(__m256, _mm256, recursion8, n2, d1)
    for (; o < floats; o += 4)
        COLUMN_STEP(__m128, _mm, recursion4, n2Half, d1Half)
}

/* The horizontal recursive Gaussian of up to three statistics (count), each a zero-padded row of
 * four-lane vectors (lane i = row i of a band of four): as RecursiveGaussian.filterQuad in Swift.
 * The first two statistics run together in the two halves of eight lanes, the third alone. */
WIDE void
wc_gaussian_rows8(const float *padded0, const float *padded1, const float *padded2, int count, long radius,
                  long width, float *filtered0, float *filtered1, float *filtered2, const float *c)
{
    const long twoN = 2 * radius;
    const __m256 n2[3] = {_mm256_set1_ps(c[0]), _mm256_set1_ps(c[1]), _mm256_set1_ps(c[2])};
    const __m256 d1[3] = {_mm256_set1_ps(c[3]), _mm256_set1_ps(c[4]), _mm256_set1_ps(c[5])};
    const __m128 n2Half[3] = {_mm_set1_ps(c[0]), _mm_set1_ps(c[1]), _mm_set1_ps(c[2])};
    const __m128 d1Half[3] = {_mm_set1_ps(c[3]), _mm_set1_ps(c[4]), _mm_set1_ps(c[5])};
    __m256 previous[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    __m256 older[3] = {previous[0], previous[0], previous[0]};
    __m128 lonePrevious[3] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    __m128 loneOlder[3] = {lonePrevious[0], lonePrevious[0], lonePrevious[0]};
    const float *second = count > 1 ? padded1 : padded0;
    for (long t = 0; t < radius - 1 + width; t++) {
        const __m128 sum0 = _mm_add_ps(_mm_loadu_ps(padded0 + 4 * t), _mm_loadu_ps(padded0 + 4 * (t + twoN)));
        const __m128 sum1 = _mm_add_ps(_mm_loadu_ps(second + 4 * t), _mm_loadu_ps(second + 4 * (t + twoN)));
        const __m256 out = recursion8(_mm256_insertf128_ps(_mm256_castps128_ps256(sum0), sum1, 1), n2, d1,
                                      previous, older);
        const long o = t - (radius - 1);  /* the first radius - 1 steps only warm up */
        if (o >= 0) {
            _mm_storeu_ps(filtered0 + 4 * o, _mm256_castps256_ps128(out));
            if (count > 1)
                _mm_storeu_ps(filtered1 + 4 * o, _mm256_extractf128_ps(out, 1));
        }
        if (count > 2) {
            const __m128 lone = _mm_add_ps(_mm_loadu_ps(padded2 + 4 * t), _mm_loadu_ps(padded2 + 4 * (t + twoN)));
            const __m128 out2 = recursion4(lone, n2Half, d1Half, lonePrevious, loneOlder);
            if (o >= 0)
                _mm_storeu_ps(filtered2 + 4 * o, out2);
        }
    }
}

/* The error maps of one row: per group of four columns as the Swift code (ErrorMaps.pool). Each
 * eight-lane result is added to the four-lane sums low half first, so the sums are built in the
 * same order. sums: ssim, ssim4, ringing, ringing4, blurring, blurring4, four floats each. */
WIDE void
wc_pool8(const float *referenceXYB, const float *referenceMean, const float *referenceVariance,
         const float *distortedXYB, const float *distortedMean, const float *distortedSquare, const float *product,
         long vectors, int ssim, float *sums)
{
    __m128 acc[6];
    for (int i = 0; i < 6; i++)
        acc[i] = _mm_loadu_ps(sums + 4 * i);
    const long floats = vectors * 4;
    long o = 0;
#define POOL_STEP(V, P, CMP_LT, ADD_HALVES)                                                         \
    {                                                                                               \
        V one = P##_set1_ps(1.0f), zero = P##_setzero_ps();                                         \
        V sign = P##_set1_ps(-0.0f);                                                                \
        V mu1 = P##_loadu_ps(referenceMean + o), mu2 = P##_loadu_ps(distortedMean + o);             \
        if (ssim) {                                                                                 \
            V meanDifference = P##_sub_ps(mu1, mu2);                                                \
            V luminance = P##_sub_ps(one, P##_mul_ps(meanDifference, meanDifference));              \
            V structure = P##_add_ps(P##_mul_ps(P##_set1_ps(2.0f),                                  \
                P##_sub_ps(P##_loadu_ps(product + o), P##_mul_ps(mu1, mu2))), P##_set1_ps(0.0009f)); \
            V contrast = P##_add_ps(P##_add_ps(P##_loadu_ps(referenceVariance + o),                 \
                P##_sub_ps(P##_loadu_ps(distortedSquare + o), P##_mul_ps(mu2, mu2))), P##_set1_ps(0.0009f)); \
            V error = P##_sub_ps(one, P##_div_ps(P##_mul_ps(luminance, structure), contrast));      \
            error = P##_and_ps(error, CMP_LT(zero, error));                                         \
            V error2 = P##_mul_ps(error, error);                                                    \
            ADD_HALVES(0, error); ADD_HALVES(1, P##_mul_ps(error2, error2));                        \
        }                                                                                           \
        V edge1 = P##_add_ps(one, P##_andnot_ps(sign, P##_sub_ps(P##_loadu_ps(referenceXYB + o), mu1))); \
        V edge2 = P##_add_ps(one, P##_andnot_ps(sign, P##_sub_ps(P##_loadu_ps(distortedXYB + o), mu2))); \
        V ratio = P##_sub_ps(P##_div_ps(edge2, edge1), one);                                        \
        V negative = P##_xor_ps(ratio, sign);                                                       \
        V artifact = P##_and_ps(ratio, CMP_LT(zero, ratio));                                        \
        V lost = P##_and_ps(negative, CMP_LT(zero, negative));                                      \
        V artifact2 = P##_mul_ps(artifact, artifact), lost2 = P##_mul_ps(lost, lost);               \
        ADD_HALVES(2, artifact); ADD_HALVES(3, P##_mul_ps(artifact2, artifact2));                   \
        ADD_HALVES(4, lost); ADD_HALVES(5, P##_mul_ps(lost2, lost2));                               \
    }
#define ADD8(i, v) do { __m256 value_ = (v);                                                        \
        acc[i] = _mm_add_ps(acc[i], _mm256_castps256_ps128(value_));                                \
        acc[i] = _mm_add_ps(acc[i], _mm256_extractf128_ps(value_, 1)); } while (0)
#define ADD4(i, v) do { acc[i] = _mm_add_ps(acc[i], (v)); } while (0)
    for (; o + 8 <= floats; o += 8)
        POOL_STEP(__m256, _mm256, LT8, ADD8)
    for (; o < floats; o += 4)
        POOL_STEP(__m128, _mm, LT4, ADD4)
    for (int i = 0; i < 6; i++)
        _mm_storeu_ps(sums + 4 * i, acc[i]);
}

#else

void wc_xyb_convert8(const float *r, const float *g, const float *b, float *o, long p, long s, const float *m) {}
void wc_gaussian_columns8(float *base, long v, const float *t, const float *b, int p, float *o, const float *c) {}
void wc_gaussian_rows8(const float *a, const float *b, const float *c, int n, long r, long w, float *f0, float *f1,
                       float *f2, const float *k) {}
void wc_pool8(const float *a, const float *b, const float *c, const float *d, const float *e, const float *f,
              const float *g, long v, int s, float *sums) {}

#endif
