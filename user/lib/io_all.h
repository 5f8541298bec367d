/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_all.h - reads and writes that move every byte: a short count or an
 * EINTR is carried on, so a caller sees all or an error.
 */
#ifndef ETDUMP_IO_ALL_H
#define ETDUMP_IO_ALL_H

#include <stddef.h>
#include <sys/types.h>

/* Every byte, retrying short writes and EINTR; negative errno. */
int write_all(int fd, const void *buf, size_t len);
/* The same at an offset, and every byte read there (-EIO at the end). */
int pwrite_all(int fd, const void *buf, size_t len, off_t off);
int pread_all(int fd, void *buf, size_t len, off_t off);

#endif /* ETDUMP_IO_ALL_H */
