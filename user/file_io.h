/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_io.h - what every command that writes a file needs: refusing a bad
 * output before the work starts, writing all of a buffer, and replacing a
 * file so that it holds either its old content or the whole new one.
 */
#ifndef ETDUMP_FILE_IO_H
#define ETDUMP_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>

/*
 * -EEXIST when path exists and !force, or the errno of its folder not
 * being writable; says why with p_err().
 */
int output_check(const char *path, bool force);
/* Every byte, retrying short writes and EINTR; negative errno. */
int write_all(int fd, const void *buf, size_t len);
/*
 * Write to a temporary file next to path, sync it, then rename it over
 * path. On error the temporary file is removed; returns a negative errno.
 * A device or FIFO is written in place instead (it cannot be replaced).
 */
int file_replace(const char *path, const void *buf, size_t len);

#endif /* ETDUMP_FILE_IO_H */
