/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ETDUMP_ABSTRACT_NAME_H
#define ETDUMP_ABSTRACT_NAME_H

/*
 * A name in the abstract unix socket namespace (sun_path[0] '\0'): in no
 * file system, held for as long as any process keeps the fd, let go by the
 * kernel when the last one is gone, killed or not; /proc/net/unix lists it
 * as "@name". Its fd, or a negative errno (-EADDRINUSE while another holds
 * it).
 */
int abstract_name_bind(const char *name);

#endif /* ETDUMP_ABSTRACT_NAME_H */
