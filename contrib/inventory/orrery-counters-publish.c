/*
 * orrery-counters-publish - put one node's records into a finished job's
 * AdminComment in the accounting database: its ORRC1: congestion counters
 * and its ORRS1: gate statistics, either or both.
 *
 *   orrery-counters-publish JOBID NODE RECORDS [CLUSTER]
 *
 * RECORDS: one argument, the node's tokens separated by a space, at most
 * one of each kind, each naming NODE.
 *
 * Started (detached) by the orrery SPANK plugin's job epilog, as root, on
 * every node of the job (spank-orrery(8), orrery-counters(7)).  Why here
 * and not slurmctld: by the time the epilog runs the job is finished, and
 * slurmctld refuses updates to finished jobs (ESLURM_JOB_FINISHED); the
 * accounting database still accepts AdminComment from an operator, and root
 * is one.  sacctmgr cannot be used: it lowercases the value, which would
 * corrupt other tools' payloads (and ORR1:'s base64 profile).
 *
 * Steps: wait until slurmctld's job-complete record has reached slurmdbd
 * (it carries slurmctld's AdminComment and would overwrite ours), merge
 * this node's tokens into the stored AdminComment (replacing only this
 * node's earlier tokens of the same kinds, keeping every other tool's),
 * write it, and keep
 * reading it back until it has stayed there for SETTLE_S, writing again
 * whenever it is gone.
 *
 * Why the settle time: the epilogs of all the job's nodes publish at the
 * same moment, and slurmdbd offers no compare-and-swap on AdminComment,
 * so each publisher's read-merge-write can overwrite a token another one
 * wrote between its read and its write.  A publisher that left as soon as
 * it saw its token once lost it to such a late writer.  A writer's read
 * precedes its write by one slurmdbd round trip (milliseconds); a token
 * that is still there SETTLE_S after it was first seen has outlived every
 * write that could have been based on a read made before it.  Gives up
 * after a deadline with one line on stderr (slurmd's log).  Never touches
 * anything but this job's row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include "counters.h"
#include "gate_stats.h"

#define DEADLINE_S     120	/* give up after this long                  */
#define WRITE_ROUNDS   30	/* merges written at most                    */
#define SETTLE_S       4	/* our token seen unchanged this long: done  */
#define COMMENT_MAX    60000	/* admin_comment is a TEXT column (64 KiB); said in the give-up line */

static const char *prog = "orrery-counters-publish";

static int contains_token(const char *comment, const char *token);

/* The node's tokens: [0] ORRC1:, [1] ORRS1:, "" where not given. */
static char tokens[2][OGS_RECORD_MAX];

/* Split RECORDS into tokens[]; -1 unless every token is a well-formed
 * record of node, and no kind comes twice. */
static int take_records(const char *records, const char *node)
{
	const char *p = records;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, " ");
		char tok[OGS_RECORD_MAX], nbuf[ORC_DEV_MAX];
		struct orc_totals ct;
		struct ogs_totals gt;
		int kind;

		if (len == 0 || len >= sizeof(tok))
			return -1;
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (orc_record_parse(tok, &ct, nbuf, sizeof(nbuf)) == 1)
			kind = 0;
		else if (ogs_record_parse(tok, &gt, nbuf, sizeof(nbuf)) == 1)
			kind = 1;
		else
			return -1;
		if (strcmp(nbuf, node) != 0 || tokens[kind][0])
			return -1;
		strcpy(tokens[kind], tok);
		n++;
		p += len;
		if (*p == ' ' && !*++p)
			return -1;
	}
	return n ? 0 : -1;
}

/* What the log lines call this node's records. */
static const char *kinds(void)
{
	return tokens[0][0] && tokens[1][0] ? "counters and gate statistics" :
	       tokens[0][0] ? "counters" : "gate statistics";
}

static int contains_all(const char *comment)
{
	for (int k = 0; k < 2; k++)
		if (tokens[k][0] && !contains_token(comment, tokens[k]))
			return 0;
	return 1;
}

/* The stored comment with this node's tokens in place; malloc()ed. */
static char *merge_all(const char *old, const char *node)
{
	char *cur = strdup(old), *next;

	for (int k = 0; cur && k < 2; k++) {
		if (!tokens[k][0])
			continue;
		next = k == 0 ? orc_comment_merge(cur, node, tokens[k]) :
				ogs_comment_merge(cur, node, tokens[k]);
		free(cur);
		cur = next;
	}
	return cur;
}

static slurmdb_job_cond_t *job_cond(uint32_t job_id, const char *cluster)
{
	slurmdb_job_cond_t *c = calloc(1, sizeof(*c));
	slurm_selected_step_t *s = calloc(1, sizeof(*s));

	if (!c || !s) {
		free(c);
		free(s);
		return NULL;
	}
	s->array_task_id = NO_VAL;
	s->het_job_offset = NO_VAL;
	s->step_id.job_id = job_id;
	s->step_id.step_id = NO_VAL;
	s->step_id.step_het_comp = NO_VAL;
	c->step_list = slurm_list_create(free);
	slurm_list_append(c->step_list, s);
	if (cluster) {
		c->cluster_list = slurm_list_create(free);
		slurm_list_append(c->cluster_list, strdup(cluster));
	}
	c->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	c->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE;
	return c;
}

static void job_cond_free(slurmdb_job_cond_t *c)
{
	if (!c)
		return;
	if (c->step_list)
		slurm_list_destroy(c->step_list);
	if (c->cluster_list)
		slurm_list_destroy(c->cluster_list);
	free(c);
}

/* The job's stored AdminComment (malloc()ed, "" if none).  1: found and
 * finished in the database; 0: not there yet or still running; -1 error. */
static int stored_comment(void *db, slurmdb_job_cond_t *c, uint32_t job_id,
			  char **out)
{
	struct xlist *jobs = /* List (22.05), list_t * (23.02+) */
		slurmdb_jobs_get(db, c);
	struct listIterator *it;
	slurmdb_job_rec_t *j, *best = NULL;
	int rc = 0;

	*out = NULL;
	if (!jobs)
		return -1;
	it = slurm_list_iterator_create(jobs);
	while ((j = slurm_list_next(it)))
		if (j->jobid == job_id && (!best || j->submit >= best->submit))
			best = j;
	slurm_list_iterator_destroy(it);
	if (best && best->end && (best->state & JOB_STATE_BASE) > JOB_SUSPENDED) {
		*out = strdup(best->admin_comment ? best->admin_comment : "");
		rc = *out ? 1 : -1;
	}
	slurm_list_destroy(jobs);
	return rc;
}

static int contains_token(const char *comment, const char *token)
{
	size_t n = strlen(token);

	for (const char *p = strstr(comment, token); p; p = strstr(p + 1, token))
		if ((p == comment || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return 1;
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Sleep without holding a slurmdbd connection.  Every node of a job that
 * ends publishes at once, and each open connection holds one of
 * slurmdbd's database connections (MariaDB's max_connections, 151 by
 * default): a 1,000-node job's publishers idling connected would starve
 * slurmctld's own accounting.  Reconnecting costs one authenticated
 * round trip per poll.
 */
static void idle(void **db, long ms)
{
	if (*db) {
		slurmdb_connection_close(db);
		*db = NULL;
	}
	pause_ms(ms);
}

int main(int argc, char **argv)
{
	const char *node, *cluster;
	char *end, *old = NULL;
	unsigned long id;
	slurmdb_job_cond_t *c;
	time_t t0 = time(NULL), deadline = t0 + DEADLINE_S;
	void *db = NULL;
	time_t seen = 0;	/* when our token was first seen in place */
	const char *why = "not tried";	/* what stopped the last round */
	int rounds = 0, rc = 1;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s JOBID NODE RECORDS [CLUSTER]\n", prog);
		return 2;
	}
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	node = argv[2];
	cluster = argc == 5 ? argv[4] : NULL;
	if (errno || *end || id == 0 || id > UINT32_MAX || !orc_valid_node(node) ||
	    take_records(argv[3], node) < 0 || (cluster && !orc_valid_node(cluster))) {
		fprintf(stderr, "%s: invalid arguments (job id, node name, or that node's ORRC1: and ORRS1: records, one of each at most)\n",
			prog);
		return 2;
	}
	srandom((unsigned) (getpid() ^ time(NULL)));
	slurm_init(NULL);
	if (!(c = job_cond((uint32_t) id, cluster)))
		return 1;
	while (time(NULL) < deadline && rounds < WRITE_ROUNDS) {
		char *merged;
		slurmdb_job_rec_t *rec;
		struct xlist *ret;
		int found;

		if (!db && !(db = slurmdb_connection_get(NULL))) {
			why = "slurmdbd not reachable";
			pause_ms(1000 + random() % 2000);	/* slurmdbd busy */
			continue;
		}
		free(old);
		found = stored_comment(db, c, (uint32_t) id, &old);
		if (found < 0) {
			why = "job not readable from slurmdbd";
			idle(&db, 1000 + random() % 1000);
			continue;
		}
		if (found == 0) {	/* job-complete record not there yet */
			why = "job not finished in accounting";
			idle(&db, 700 + random() % 600);
			continue;
		}
		if (contains_all(old)) {
			if (!seen)
				seen = time(NULL);
			if (time(NULL) - seen >= SETTLE_S) {
				rc = 0;
				break;
			}
			idle(&db, 400 + random() % 400);
			continue;
		}
		seen = 0;	/* not there (yet, or again): merge and write */
		why = "overwritten by other writers";
		/* slurmdbd writes the value into SQL unescaped. */
		if (strpbrk(old, "'\\\"")) {
			why = "the stored AdminComment has quotes or backslashes (not modified)";
			break;
		}
		merged = merge_all(old, node);
		if (!merged || strlen(merged) > COMMENT_MAX) {
			why = "AdminComment would exceed 60000 bytes";
			free(merged);
			break;
		}
		/* Only the fields slurmdbd's job modify looks at: every
		 * other one stays unset. */
		if (!(rec = calloc(1, sizeof(*rec)))) {
			free(merged);
			break;
		}
		rec->derived_ec = NO_VAL;
		rec->admin_comment = merged;
		ret = slurmdb_job_modify(db, c, rec);
		free(rec);
		free(merged);
		if (ret) {
			slurmdb_connection_commit(db, 1);
			slurm_list_destroy(ret);
		} else {
			slurmdb_connection_commit(db, 0);
		}
		rounds++;
		/* Spread the concurrent publishers' retries apart. */
		idle(&db, 100 + random() % 600);
	}
	if (rc == 0)
		fprintf(stderr, "%s: job %lu: node %s's %s recorded (%d writes, %ld s)\n",
			prog, id, node, kinds(), rounds, (long) (time(NULL) - t0));
	else if (seen)
		fprintf(stderr, "%s: job %lu: node %s's %s in place, not settled when it stopped (%d writes)\n",
			prog, id, node, kinds(), rounds);
	else
		fprintf(stderr, "%s: job %lu: node %s's %s not recorded: %s%s after %ld s and %d writes\n",
			prog, id, node, kinds(), why, rounds >= WRITE_ROUNDS ? " too often" : "",
			(long) (time(NULL) - t0), rounds);
	free(old);
	job_cond_free(c);
	if (db)
		slurmdb_connection_close(&db);
	slurm_fini();
	return rc;
}
