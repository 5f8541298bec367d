/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_io.h - what every command that writes a file needs: refusing a bad
 * output before the work starts, and replacing a file so that it holds
 * either its old content or the whole new one.
 */
#ifndef ETDUMP_FILE_IO_H
#define ETDUMP_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <sys/types.h>

/*
 * -EEXIST when path exists and !force, or the errno of its folder not
 * being writable; says why with p_err().
 */
int output_check(const char *path, bool force);
/* Whether two output names are one file (./x and x, dir/../x). */
bool output_same(const char *a, const char *b);
/*
 * Write to a temporary file next to path, sync it, then move it to path:
 * rename() over it with force, else link() (which never replaces). The
 * file has no name until it is whole where the file system allows
 * (O_TMPFILE): a writer killed meanwhile leaves nothing. A
 * symbolic link at path is never followed nor replaced (-ELOOP), a file
 * there without force is kept (-EEXIST): then the data stays in the
 * temporary file, whose name *kept gets (the caller frees it). On other
 * errors the temporary file is removed; returns a negative errno. A device
 * or FIFO is written in place instead (it cannot be replaced).
 */
int file_replace(const char *path, const void *buf, size_t len, bool force,
		 char **kept);
/*
 * The same with the data written by fn into fd: a new empty regular file
 * (regular), or the device or FIFO itself. 0 or a negative errno.
 */
typedef int (*file_write_fn)(void *ctx, int fd, bool regular);
int file_replace_with(const char *path, file_write_fn fn, void *ctx,
		      bool force, char **kept);
/*
 * The last step of those for a file already written, unnamed (O_TMPFILE,
 * linkable) in path's folder: synced, then named path as they name theirs.
 * fd stays the caller's.
 */
int file_name_unnamed(int fd, const char *path, bool force, char **kept);
/* A device, FIFO or socket at path: written in place, never replaced. */
bool file_is_special(const char *path);
/*
 * A reader's answer to a device, FIFO or socket given as its input: it
 * could read without end (/dev/zero) or block for ever (a FIFO).
 */
#define ENOTREGULAR ESPIPE
/*
 * An input opened for reading: its descriptor, or a negative errno
 * (-ENOTREGULAR for anything but a regular file). Never blocks on a FIFO.
 */
int file_open_regular(const char *path);

/* What went wrong writing an output, for "PATH: cannot write: %s". */
const char *file_error(int err);
/* One line: the output that could not be written, and where it is kept. */
void output_error(const char *path, int err, const char *kept);

/*
 * File n (from 1) of a series named after output, a 4-digit number before
 * its extension: run.etdp gives run.0001.etdp. -ENAMETOOLONG past len.
 */
int file_series_name(const char *output, unsigned int n, char *buf,
		     size_t len);

#endif /* ETDUMP_FILE_IO_H */
