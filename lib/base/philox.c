/*
 * philox.c - TensorFlow's random number source, bit-exact: the Philox-4x32-10
 * counter-based generator (Salmon et al., "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011) and the Box-Muller step of TensorFlow's normal distributions.
 *
 * Box-Muller takes its logarithm, square root, sine and cosine from the C library,
 * as TensorFlow's kernels do, so that on the same libm the floats are the same bits;
 * the float version works in float (logf, sqrtf, sinf, cosf) except for the angle,
 * which TensorFlow forms in double (2 * pi is a double constant there).
 */
#include "tfn_internal.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define TWO_PI 6.283185307179586476925286766559 /* 2 * pi, as a double */

static void philox_block(const uint32_t key[2], const uint32_t ctr[4], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void tfn_philox4x32(const uint32_t key[2], const uint32_t counter[4], uint64_t nblocks,
                    uint32_t *out)
{
    uint32_t ctr[4] = {counter[0], counter[1], counter[2], counter[3]};
    for (uint64_t i = 0; i < nblocks; i++) {
        philox_block(key, ctr, out + 4 * i);
        /* the counter is one 128-bit number, word 0 the lowest */
        if (++ctr[0] == 0 && ++ctr[1] == 0 && ++ctr[2] == 0)
            ++ctr[3];
    }
}

static float unit_float(uint32_t x)
{
    uint32_t bits = 0x3f800000u | (x & 0x7fffffu); /* [1, 2) */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f - 1.0f;
}

static double unit_double(uint32_t x0, uint32_t x1)
{
    uint64_t bits = ((uint64_t)1023 << 52) | ((uint64_t)(x0 & 0xfffffu) << 32) | x1;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d - 1.0;
}

void tfn_box_muller_float(const uint32_t *bits, size_t npairs, float *out)
{
    for (size_t i = 0; i < npairs; i++) {
        float u1 = unit_float(bits[2 * i]);
        if (u1 < 1.0e-7f) /* keeps log() finite */
            u1 = 1.0e-7f;
        float v1 = (float)(TWO_PI * (double)unit_float(bits[2 * i + 1]));
        float u2 = sqrtf(-2.0f * logf(u1));
        out[2 * i] = sinf(v1) * u2;
        out[2 * i + 1] = cosf(v1) * u2;
    }
}

void tfn_box_muller_double(const uint32_t *bits, size_t nquads, double *out)
{
    for (size_t i = 0; i < nquads; i++) {
        const uint32_t *x = bits + 4 * i;
        double u1 = unit_double(x[0], x[1]);
        if (u1 < 1.0e-7)
            u1 = 1.0e-7;
        double v1 = TWO_PI * unit_double(x[2], x[3]);
        double u2 = sqrt(-2.0 * log(u1));
        out[2 * i] = sin(v1) * u2;
        out[2 * i + 1] = cos(v1) * u2;
    }
}
