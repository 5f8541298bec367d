// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_load_retry.c - lib/load_retry.h without a kernel: a try that is
 * told what to answer, as a load the verifier gives up on for signals
 * answers -EAGAIN. A load gets LOAD_TRIES whole tries and no more, what a
 * try left is undone only where another follows, and only the last try
 * is told it is the last (the one whose -EAGAIN the caller says).
 */
#include <errno.h>
#include <stdbool.h>
#include "lib/load_retry.h"
#include "testlib.h"

struct script {
	int eagains;    /* -EAGAIN this many times, then */
	int then;       /* this */
	int tries, undos, lasts;
	int last_at;    /* the try told it was the last (from 1), or 0 */
	bool undone;    /* what the last try left was undone */
};

static int scripted_try(void *ctx, bool last)
{
	struct script *s = ctx;

	s->tries++;
	s->undone = false;
	if (last) {
		s->lasts++;
		s->last_at = s->tries;
	}
	return s->tries <= s->eagains ? -EAGAIN : s->then;
}

static void scripted_undo(void *ctx)
{
	struct script *s = ctx;

	s->undos++;
	s->undone = true;
}

TEST(loaded_at_once)
{
	struct script s = { .eagains = 0, .then = 0 };

	CHECK_EQ_INT(load_retry(scripted_try, scripted_undo, &s), 0);
	CHECK_EQ_INT(s.tries, 1);
	CHECK_EQ_INT(s.undos, 0);
	CHECK_EQ_INT(s.lasts, 0);
}

TEST(an_fd_is_given_back)
{
	struct script s = { .eagains = 3, .then = 42 };

	CHECK_EQ_INT(load_retry(scripted_try, scripted_undo, &s), 42);
	CHECK_EQ_INT(s.tries, 4);
}

/*
 * Every try there is room for was made; each -EAGAIN's leftovers were
 * freed before the next, the last try's left to the caller (a loaded
 * object, or one to free with the rest); the last alone was told.
 */
static void check_to_the_bound(const struct script *s)
{
	CHECK_EQ_INT(s->tries, LOAD_TRIES);
	CHECK_EQ_INT(s->undos, LOAD_TRIES - 1);
	CHECK(!s->undone);
	CHECK_EQ_INT(s->lasts, 1);
	CHECK_EQ_INT(s->last_at, LOAD_TRIES);
}

TEST(signals_then_loaded_at_the_last_try)
{
	struct script s = { .eagains = LOAD_TRIES - 1, .then = 0 };

	CHECK_EQ_INT(load_retry(scripted_try, scripted_undo, &s), 0);
	check_to_the_bound(&s);
}

TEST(signals_all_along_give_up_at_the_bound)
{
	struct script s = { .eagains = 1000, .then = 0 };

	CHECK_EQ_INT(load_retry(scripted_try, scripted_undo, &s), -EAGAIN);
	check_to_the_bound(&s);
}

TEST(another_error_is_not_tried_again)
{
	struct script s = { .eagains = 2, .then = -EINVAL };

	CHECK_EQ_INT(load_retry(scripted_try, scripted_undo, &s), -EINVAL);
	CHECK_EQ_INT(s.tries, 3);
	CHECK_EQ_INT(s.undos, 2);
	CHECK(!s.undone);
	CHECK_EQ_INT(s.lasts, 0);
}

TEST(nothing_to_undo)
{
	struct script s = { .eagains = 5, .then = 7 };

	CHECK_EQ_INT(load_retry(scripted_try, NULL, &s), 7);
	CHECK_EQ_INT(s.tries, 6);
	CHECK_EQ_INT(s.undos, 0);
}

int main(void)
{
	RUN(loaded_at_once);
	RUN(an_fd_is_given_back);
	RUN(signals_then_loaded_at_the_last_try);
	RUN(signals_all_along_give_up_at_the_bound);
	RUN(another_error_is_not_tried_again);
	RUN(nothing_to_undo);
	return TEST_SUMMARY();
}
