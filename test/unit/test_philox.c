/* test_philox.c - TensorFlow's random source: Philox-4x32-10 against Random123's known
 * answer and its 128-bit counter carry, and the Box-Muller steps against values recorded
 * from TensorFlow 2.21 (tf.random.stateless_normal([4], seed=[1, 2]) and its float64
 * form), with the stateless seed rule (one Philox round of the seed pair under TF's
 * fixed key) written out here. */
#include "harness.h"
#include "tfnano.h"

#include <stdint.h>
#include <string.h>

static void test_known_answer(void)
{
    const uint32_t key[2] = {0, 0}, ctr[4] = {0, 0, 0, 0};
    uint32_t out[4];
    tfn_philox4x32(key, ctr, 1, out);
    CHECK(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu &&
          out[3] == 0x9b00dbd8u);
}

static void test_counter_carries(void)
{
    const uint32_t key[2] = {7, 9};
    const uint32_t start[4] = {0xffffffffu, 0xffffffffu, 5, 0}; /* low half wraps next */
    const uint32_t next[4] = {0, 0, 6, 0};
    uint32_t two[8], one[4];
    tfn_philox4x32(key, start, 2, two);
    tfn_philox4x32(key, next, 1, one);
    CHECK(memcmp(two + 4, one, sizeof one) == 0);
}

/* TF's stateless key/counter for the seed pair {s0, s1} (small non-negative values). */
static void stateless(uint32_t s0, uint32_t s1, uint32_t key[2], uint32_t ctr[4])
{
    const uint32_t fixed[2] = {0x3ec8f720u, 0x02461e29u};
    const uint32_t seed[4] = {s0, 0, s1, 0};
    uint32_t mix[4];
    tfn_philox4x32(fixed, seed, 1, mix);
    key[0] = mix[0];
    key[1] = mix[1];
    ctr[0] = ctr[1] = 0;
    ctr[2] = mix[2];
    ctr[3] = mix[3];
}

static void test_normal_float_as_tensorflow(void)
{
    static const uint32_t want[4] = {1057704653u, 1045715841u, 1033283812u, 1027486248u};
    uint32_t key[2], ctr[4], words[4];
    float got[4];
    stateless(1, 2, key, ctr);
    tfn_philox4x32(key, ctr, 1, words);
    tfn_box_muller_float(words, 2, got);
    for (int i = 0; i < 4; i++) {
        uint32_t bits;
        memcpy(&bits, &got[i], sizeof bits);
        CHECK(bits == want[i]);
    }
}

static void test_normal_double_as_tensorflow(void)
{
    static const uint64_t want[2] = {13817667380461884307ull, 4604846016580931118ull};
    uint32_t key[2], ctr[4], words[4];
    double got[2];
    stateless(1, 2, key, ctr);
    tfn_philox4x32(key, ctr, 1, words);
    tfn_box_muller_double(words, 1, got);
    for (int i = 0; i < 2; i++) {
        uint64_t bits;
        memcpy(&bits, &got[i], sizeof bits);
        CHECK(bits == want[i]);
    }
}

int main(void)
{
    RUN(test_known_answer);
    RUN(test_counter_carries);
    RUN(test_normal_float_as_tensorflow);
    RUN(test_normal_double_as_tensorflow);
    return harness_finish();
}
