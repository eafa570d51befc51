/*
 * admin_comment - editing a job's AdminComment, which holds
 * space-separated tokens from several writers: orrery's ORR1: (placement),
 * ORRG1: (channel), ORRC1:node=... (counters, one per node) and
 * ORRS1:node=... (gate statistics, one per node) records
 * beside whatever other site tools keep there.
 *
 * Every writer replaces only its own token(s) and keeps every other token
 * in its place and order, so one edit never loses another's record.
 * Plain C (no GLib): the SPANK plugin and the counter publisher link it.
 */
#ifndef ORRERY_ADMIN_COMMENT_H
#define ORRERY_ADMIN_COMMENT_H

#include <stddef.h>

/* Does the token tok (n bytes, not NUL-terminated) belong to the writer? */
typedef int (*orr_token_match_t)(const char *tok, size_t n, const void *arg);

/* A match for "every token that starts with the string arg". */
int orr_token_has_prefix(const char *tok, size_t n, const void *arg);

/* The token of one node's record: "TAG" "node=NODE" then ',' or its end
 * (ORRC1: counters, ORRS1: gate statistics). */
struct orr_node_token {
	const char *tag;	/* "ORRC1:" */
	const char *node;
};
/* A match for the orr_node_token arg. */
int orr_token_is_node(const char *tok, size_t n, const void *arg);

/*
 * Call fn for every token of comment that starts with prefix, in order:
 * tok is not NUL-terminated, n its length.  The tokens of one writer,
 * found as orr_comment_replace finds them (space-separated words).
 */
void orr_comment_each(const char *comment, const char *prefix,
		      void (*fn)(const char *tok, size_t n, void *arg),
		      void *arg);

/*
 * A new AdminComment: old's tokens (NULL: none) without those that match,
 * runs of spaces collapsed to one, then token appended (NULL or "": no
 * token, i.e. removal).  Returns malloc'd memory, NULL when out of memory.
 */
char *orr_comment_replace(const char *old, orr_token_match_t match,
			  const void *arg, const char *token);

#endif
