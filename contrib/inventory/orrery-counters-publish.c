/*
 * orrery-counters-publish - put one node's ORRC1: congestion record into a
 * finished job's AdminComment in the accounting database.
 *
 *   orrery-counters-publish JOBID NODE RECORD [CLUSTER]
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
 * this node's token into the stored AdminComment (replacing only this
 * node's earlier token, keeping every other tool's), write it, then read it
 * back after a random pause and write again if a concurrent epilog of
 * another node overwrote it.  Gives up after a deadline with one line on
 * stderr (slurmd's log).  Never touches anything but this job's row.
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

#define DEADLINE_S     120	/* give up after this long                  */
#define VERIFY_ROUNDS  6	/* write-then-read-back attempts            */
#define COMMENT_MAX    60000	/* admin_comment is a TEXT column (64 KiB) */

static const char *prog = "orrery-counters-publish";

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
	List jobs = slurmdb_jobs_get(db, c);
	ListIterator it;
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

int main(int argc, char **argv)
{
	const char *node, *record, *cluster;
	char *end, *old = NULL;
	unsigned long id;
	slurmdb_job_cond_t *c;
	struct orc_totals t;
	char nbuf[ORC_DEV_MAX];
	time_t deadline = time(NULL) + DEADLINE_S;
	void *db = NULL;
	int rounds = 0, rc = 1;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s JOBID NODE RECORD [CLUSTER]\n", prog);
		return 2;
	}
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	node = argv[2];
	record = argv[3];
	cluster = argc == 5 ? argv[4] : NULL;
	if (errno || *end || id == 0 || id > UINT32_MAX || !orc_valid_node(node) ||
	    orc_record_parse(record, &t, nbuf, sizeof(nbuf)) != 1 ||
	    strcmp(nbuf, node) != 0 || (cluster && !orc_valid_node(cluster))) {
		fprintf(stderr, "%s: invalid arguments (job id, node name or ORRC1: record of that node)\n",
			prog);
		return 2;
	}
	srandom((unsigned) (getpid() ^ time(NULL)));
	slurm_init(NULL);
	if (!(c = job_cond((uint32_t) id, cluster)))
		return 1;
	while (time(NULL) < deadline && rounds < VERIFY_ROUNDS) {
		char *merged;
		slurmdb_job_rec_t *rec;
		List ret;
		int found;

		if (!db && !(db = slurmdb_connection_get(NULL))) {
			pause_ms(2000);
			continue;
		}
		free(old);
		found = stored_comment(db, c, (uint32_t) id, &old);
		if (found < 0) {
			slurmdb_connection_close(&db);
			db = NULL;
			pause_ms(1000);
			continue;
		}
		if (found == 0) {	/* job-complete record not there yet */
			pause_ms(1000);
			continue;
		}
		if (contains_token(old, record)) {
			rc = 0;
			break;
		}
		/* slurmdbd writes the value into SQL unescaped. */
		if (strpbrk(old, "'\\\"")) {
			fprintf(stderr, "%s: job %lu: stored AdminComment has quotes or backslashes; not modified\n",
				prog, id);
			break;
		}
		merged = orc_comment_merge(old, node, record);
		if (!merged || strlen(merged) > COMMENT_MAX) {
			fprintf(stderr, "%s: job %lu: AdminComment would exceed %d bytes; node %s's record dropped\n",
				prog, id, COMMENT_MAX, node);
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
		/* Another node's epilog may have read before our write and
		 * write after it: look again after a random pause. */
		pause_ms(200 + random() % 800);
	}
	if (rc != 0 && !(old && contains_token(old, record)))
		fprintf(stderr, "%s: job %lu: node %s's counters not recorded (%s)\n",
			prog, id, node, time(NULL) >= deadline ?
			"job not finished in accounting in time" : "gave up");
	free(old);
	job_cond_free(c);
	if (db)
		slurmdb_connection_close(&db);
	slurm_fini();
	return rc;
}
