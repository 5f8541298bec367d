/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * every_word.h - record --every N: the word 4 bytes past a runtime's etdump
 * semaphores (schema/etdump_usdt.h, ABI 3) that makes batched mode keep one
 * run in N. Each file's copy in the running process is written when a
 * recorder attaches, 0 when --every is not given: a recorder killed earlier
 * may have left its N there, and nothing else resets it.
 */
#ifndef ETDUMP_EVERY_WORD_H
#define ETDUMP_EVERY_WORD_H

#include <stdint.h>
#include <sys/types.h>

struct probe_object;
struct probe_objects;

/* struct etdump_semaphores: the semaphores' 4 bytes, then `every` */
#define EVERY_WORD_OFFSET 4

/*
 * Whether obj's runtime has the word: its .symtab's etdump_semaphores is 8
 * bytes (an older header's was 4), or, stripped, the word lies inside
 * .probes. 1, 0, or negative errno with "PATH: why" in err.
 */
int every_word_present(const struct probe_object *obj, char *err,
		       size_t errlen);

/*
 * obj's word in process pid set to `every`, *was (if not NULL) the value
 * it held; written only when it differs. -ENOTSUP: no word (an older
 * runtime). Negative errno with "PATH: why" in err.
 */
int every_word_set(pid_t pid, const struct probe_object *obj, uint32_t every,
		   uint32_t *was, char *err, size_t errlen);

/*
 * The same for every file of objs with etdump probes. An older runtime's
 * file is left alone when `every` keeps every run, else refused.
 */
int every_words_set(pid_t pid, const struct probe_objects *objs,
		    uint32_t every, char *err, size_t errlen);

/*
 * Release the command t holds at its gate with objs' words set to `every`
 * before its code runs: the executable's at its exec, each library's once
 * the loader has mapped it (exec_stop.h). A library the loader maps past
 * the steps' bound, or dlopen()s later, keeps every run: said with
 * p_warn(). Negative errno with the reason in err.
 */
struct target;
int every_words_at_start(struct target *t, const struct probe_objects *objs,
			 uint32_t every, char *err, size_t errlen);

#endif /* ETDUMP_EVERY_WORD_H */
