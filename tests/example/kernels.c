// SPDX-License-Identifier: BSD-3-Clause
#include <math.h>
#include "kernels.h"

/* one output point: the k x k x c window whose top-left corner is (y0, x0) */
static float conv_point(const float *in, int c, int h, int w,
			const float *filter, int k, int y0, int x0)
{
	float acc = 0.0f;

	for (int i = 0; i < c; i++) {
		for (int ky = 0; ky < k; ky++) {
			int iy = y0 + ky;

			for (int kx = 0; kx < k; kx++) {
				int ix = x0 + kx;

				/* zero padding: outside taps add nothing */
				if (iy < 0 || iy >= h || ix < 0 || ix >= w)
					continue;
				acc += filter[(i * k + ky) * k + kx] *
				       in[(i * h + iy) * w + ix];
			}
		}
	}
	return acc;
}

void conv2d(const float *in, int c, int h, int w, const float *weight,
	    const float *bias, int oc, int k, int pad, float *out)
{
	int oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;

	for (int o = 0; o < oc; o++) {
		const float *filter = weight + o * c * k * k;

		for (int y = 0; y < oh; y++)
			for (int x = 0; x < ow; x++)
				out[(o * oh + y) * ow + x] = bias[o] +
					conv_point(in, c, h, w, filter, k,
						   y - pad, x - pad);
	}
}

void relu(const float *in, int n, float *out)
{
	for (int i = 0; i < n; i++)
		out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void max_pool2d(const float *in, int c, int h, int w, int k, int stride,
		float *out, int64_t *indices)
{
	int oh = (h - k) / stride + 1, ow = (w - k) / stride + 1;

	for (int i = 0; i < c; i++) {
		const float *plane = in + i * h * w;

		for (int y = 0; y < oh; y++) {
			for (int x = 0; x < ow; x++) {
				int best = y * stride * w + x * stride;

				for (int ky = 0; ky < k; ky++) {
					for (int kx = 0; kx < k; kx++) {
						int at = (y * stride + ky) * w +
							 x * stride + kx;

						if (plane[at] > plane[best])
							best = at;
					}
				}
				out[(i * oh + y) * ow + x] = plane[best];
				indices[(i * oh + y) * ow + x] = best;
			}
		}
	}
}

void linear(const float *in, int n_in, const float *weight, const float *bias,
	    int n_out, float *out)
{
	for (int o = 0; o < n_out; o++) {
		const float *row = weight + (long)o * n_in;
		float acc = bias[o];

		for (int i = 0; i < n_in; i++)
			acc += row[i] * in[i];
		out[o] = acc;
	}
}

void softmax(const float *in, int n, float *out)
{
	float max = in[0], sum = 0.0f;

	/* subtracting the max keeps expf() finite for any logits */
	for (int i = 1; i < n; i++)
		if (in[i] > max)
			max = in[i];
	for (int i = 0; i < n; i++) {
		out[i] = expf(in[i] - max);
		sum += out[i];
	}
	for (int i = 0; i < n; i++)
		out[i] /= sum;
}
