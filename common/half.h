/* bfloat16 and IEEE 754 binary16 (half) <-> float, by hand: neither C11 nor every compiler
 * has the types, and the library must round exactly as the GPUs do (round to nearest even,
 * subnormals kept, overflow to infinity, NaN kept quiet with its sign). Elements of both are
 * stored as uint16_t. tests/test_tensor.c checks every half and every rounding boundary. */
#ifndef SG_HALF_H
#define SG_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t sg_float_bits(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof(x));
	return x;
}

static inline float sg_bits_float(uint32_t x)
{
	float f;
	memcpy(&f, &x, sizeof(f));
	return f;
}

/* bfloat16 is the top half of a float: widening is exact. */
static inline float sg_bf16_to_float(uint16_t h)
{
	return sg_bits_float((uint32_t)h << 16);
}

static inline uint16_t sg_float_to_bf16(float f)
{
	uint32_t x = sg_float_bits(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)    /* NaN: quiet, sign and top payload kept */
		return (uint16_t)((x >> 16) | 0x0040u);
	/* Round to nearest even on the 16 bits dropped; a carry into the exponent is the right
	 * result (up to infinity past the largest bfloat16), subnormals included. */
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

/* Exact: every half is a float. */
static inline float sg_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
	if (exponent == 0x1f)                    /* infinity, NaN (payload kept) */
		return sg_bits_float(sign | 0x7f800000u | mantissa << 13);
	if (exponent == 0) {                     /* zero, subnormal: mantissa x 2^-24 */
		float v = (float)mantissa * 0x1p-24f;
		return sign ? -v : v;
	}
	return sg_bits_float(sign | (exponent + 112) << 23 | mantissa << 13);
}

static inline uint16_t sg_float_to_half(float f)
{
	uint32_t x = sg_float_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u)                    /* NaN: quiet, top payload bits kept */
		return (uint16_t)(sign | 0x7e00u | (ax >> 13 & 0x3ffu));
	if (ax >= 0x477ff000u)                   /* >= 65520, halfway past 65504: infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (ax <= 0x33000000u)                   /* <= 2^-25, half the smallest subnormal: 0 */
		return sign;
	if (ax < 0x38800000u) {                  /* below 2^-14: a subnormal half */
		uint32_t mantissa = (ax & 0x7fffffu) | 0x800000u;
		uint32_t shift = 126 - (ax >> 23);   /* 14..24: value / 2^-24 = mantissa >> shift */
		uint32_t r = mantissa >> shift, rest = mantissa & ((1u << shift) - 1);
		uint32_t halfway = 1u << (shift - 1);
		if (rest > halfway || (rest == halfway && (r & 1u)))
			r++;                             /* may carry into the smallest normal: right */
		return (uint16_t)(sign | r);
	}
	ax -= 0x38000000u;                       /* exponent bias 127 -> 15 */
	ax += 0xfffu + ((ax >> 13) & 1u);        /* round to nearest even on 13 bits */
	return (uint16_t)(sign | ax >> 13);
}

#endif
