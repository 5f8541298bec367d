/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernels.h - plain float kernels on contiguous NCHW buffers (batch 1).
 * They know nothing of tensors, programs or tracing: the operator wrappers
 * in program.c and the delegate call them.
 */
#ifndef EXAMPLE_KERNELS_H
#define EXAMPLE_KERNELS_H

#include <stdint.h>

/* stride 1, zero padding `pad`, square k x k filters */
void conv2d(const float *in, int c, int h, int w, const float *weight,
	    const float *bias, int oc, int k, int pad, float *out);
void relu(const float *in, int n, float *out);
/* indices: the argmax's flat position within its h x w plane, as PyTorch */
void max_pool2d(const float *in, int c, int h, int w, int k, int stride,
		float *out, int64_t *indices);
/* weight is [n_out][n_in], as torch.nn.Linear stores it */
void linear(const float *in, int n_in, const float *weight, const float *bias,
	    int n_out, float *out);
void softmax(const float *in, int n, float *out);

#endif /* EXAMPLE_KERNELS_H */
