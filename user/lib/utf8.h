/* SPDX-License-Identifier: BSD-3-Clause */
/* utf8.h - make captured strings valid UTF-8: flatc rejects anything else. */
#ifndef ETDUMP_UTF8_H
#define ETDUMP_UTF8_H

#include <stdbool.h>

/* Replace each byte that is not part of a valid UTF-8 sequence with '?'. */
void utf8_sanitize(char *s);
bool utf8_valid(const char *s);

#endif /* ETDUMP_UTF8_H */
