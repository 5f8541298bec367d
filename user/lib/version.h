/* SPDX-License-Identifier: BSD-3-Clause */
/* version.h - etdump-bpf's version: --version, and what a capture says wrote it. */
#ifndef ETDUMP_VERSION_H
#define ETDUMP_VERSION_H

#define ETDUMP_BPF_VERSION "0.1.0"

#endif /* ETDUMP_VERSION_H */
