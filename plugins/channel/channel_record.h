/*
 * channel_record.h - the live channel's record: the gate parameters
 * slurmctld (select/orrery) publishes for a running job whose link group
 * changed, as the "ORRG1:" token of the job's AdminComment, and as the
 * node-local file the SPANK plugin writes for the job's tasks
 * (select-orrery(8) and spank-orrery(8), CHANNEL; orrery-runtime(7)).
 *
 * Token: ORRG1:gen=G,gate=on|off,period_us=P,shift_us=S,epoch_us=E,
 *        apply_us=A,pub_us=T,mode=M
 * File:  the same keys, one "key=value" line each, after job_id=N.
 * gen counts the job's re-alignments (1, 2, ...): a reader ignores a
 * record whose gen is not above the one it has.  apply_us: the slot
 * boundary (on the job's old grid) from which the new gate holds; pub_us:
 * when the controller published it.  Plain C, no Slurm, no GLib: compiled
 * into the select plugin, the SPANK plugin, liborrery-runtime and
 * orrery-sacct.
 */
#ifndef ORRERY_CHANNEL_RECORD_H
#define ORRERY_CHANNEL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define ORRC_TAG "ORRG1:"
#define ORRC_FILE_MAX 1024	/* bytes of a channel file */

typedef struct orrc_record {
	uint64_t gen;		/* >= 1 */
	int gate;		/* 1 on, 0 off */
	int64_t period_us, shift_us, epoch_us;	/* 0 when off */
	int64_t apply_us, pub_us;
	char mode[16];		/* rotate, divide, share, alone */
} orrc_record_t;

/* "ORRG1:..." into out; -1 if it does not fit. */
int orrc_format_token(const orrc_record_t *r, char *out, size_t len);
/* The file's text (job_id first); -1 if it does not fit. */
int orrc_format_file(uint32_t job_id, const orrc_record_t *r, char *out,
		     size_t len);
/* Find the ORRG1: token among the space-separated tokens of an
 * AdminComment: 1 found and valid, 0 none, -1 malformed (why filled). */
int orrc_parse_comment(const char *admin_comment, orrc_record_t *r,
		       char *why, size_t whylen);
/* Parse a channel file's text for job_id: 1 valid, -1 invalid (why). */
int orrc_parse_file(const char *text, uint32_t job_id, orrc_record_t *r,
		    char *why, size_t whylen);
/* The one token of a comment's space-separated tokens that starts with
 * tag: 1 (*tok after the tag, *n the rest's length), 0 none, -1 two of
 * them (why filled). */
int orrc_find_token(const char *comment, const char *tag, const char **tok,
		    size_t *n, char *why, size_t whylen);
/* The n characters at s as a plain decimal number (digits only, at most
 * 19 of them): 0, or -1.  Shared by the records' parsers. */
int orrc_parse_num(const char *s, size_t n, int64_t *out);
/* AdminComment with `token' in place of any earlier token starting with
 * `tag' (others kept in order).  malloc()ed, NULL on no memory. */
char *orrc_comment_replace(const char *old, const char *tag,
			   const char *token);

#endif
