/*
 * timeline.h - collective timelines recorded by liborrery-runtime's record
 * mode (ORRERY_RECORD=PREFIX) or by the Python hook, one file per rank:
 *
 *	# orrery-timeline 1
 *	# host=NAME pid=N rank=R source=nccl|torch|fake
 *	start_us end_us bytes comm op
 *
 * Times are CLOCK_REALTIME microseconds.  Recorders write a line when the
 * collective completes, so lines are in start order only roughly: the
 * reader sorts them, but refuses a line that starts more than
 * TL_REORDER_US before the latest start seen (a clock step, mixed files).
 * The reader is strict (every problem is an error naming FILE:LINE) and
 * bounded (line length, events per file and in total).
 */
#ifndef ORRERY_CAPTURE_TIMELINE_H
#define ORRERY_CAPTURE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_MAX_LINE     1024         /* bytes per line, newline included */
#define TL_MAX_EVENTS   4000000      /* per file                        */
#define TL_MAX_TOTAL    16000000     /* over all files                  */
#define TL_MAX_FILES    4096
#define TL_NAME_MAX     64           /* comm, op, host: longer is an error */
#define TL_REORDER_US   60000000     /* 60 s */

/* Operations the bus-bandwidth factor knows (analyse.c, orrery-capture(1)). */
enum tl_op {
	TL_OP_ALLREDUCE,
	TL_OP_ALLGATHER,
	TL_OP_REDUCESCATTER,
	TL_OP_BROADCAST,
	TL_OP_REDUCE,
	TL_OP_ALLTOALL,
	TL_OP_SEND,
	TL_OP_RECV,
	TL_OP_OTHER
};

struct tl_event {
	int64_t start_us;
	int64_t end_us;
	uint64_t bytes;
	uint32_t comm;       /* index into the file's communicator names */
	enum tl_op op;
};

struct timeline {
	char *path;
	char host[TL_NAME_MAX + 1];
	char source[TL_NAME_MAX + 1];
	long pid;            /* -1 if the header did not say */
	long rank;           /* -1 if the header did not say */
	struct tl_event *ev;
	size_t n;
	char **comms;        /* distinct communicator names, first-seen order */
	size_t n_comms;
};

/* Read one file.  On error returns -1 and writes "PATH:LINE: problem" into
 * err.  `budget` is the number of events still allowed over all files; it
 * is decreased by what this file used. */
int timeline_read(const char *path, struct timeline *tl, size_t *budget,
		  char *err, size_t errlen);
void timeline_free(struct timeline *tl);

enum tl_op tl_op_parse(const char *s);
const char *tl_op_name(enum tl_op op);

#endif
