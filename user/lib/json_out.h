/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json_out.h - JSON text for any C string: what every JSON-printing
 * command shares, so that all of them escape alike.
 */
#ifndef ETDUMP_JSON_OUT_H
#define ETDUMP_JSON_OUT_H

#include <stdio.h>

/*
 * s as a quoted JSON string (NULL as ""); bytes that are not UTF-8 become
 * '?', as flatc would refuse them. 0, or -ENOMEM (then nothing written).
 */
int json_out_str(FILE *f, const char *s);

#endif /* ETDUMP_JSON_OUT_H */
