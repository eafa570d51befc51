/*
 * recover.c - rebuild orrery's running jobs from slurmctld's job records
 * (recover.h).  Why from AdminComment: slurmctld saves it with the job in
 * its own state and keeps it across restarts, and job_begin wrote there
 * everything the model needs (the resolved profile, the shift, the epoch);
 * the nodes are the job's node_bitmap.  Nothing here can fail a job: a
 * job that cannot be put back is counted and named once.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "compat.h"

#include "admin_record.h"
#include "lib_syms.h"
#include "recover.h"

static bool live(job_record_t *j)
{
	return j && (IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) &&
	       !IS_JOB_COMPLETING(j) && j->node_bitmap && j->admin_comment;
}

static bool known(orrery_cluster_t *c, uint32_t id)
{
	int64_t shift, period;

	return orrery_cluster_job_shift_us(c, id, &shift, &period) == ORRERY_OK;
}

/* The epoch most records carry (ties: the earliest), or 0 if none. */
static int64_t common_epoch(list_t *jobs)
{
	list_itr_t *it = list_iterator_create(jobs);
	job_record_t *j;
	int64_t best = 0;
	size_t best_n = 0, n = 0, cap = 0;
	int64_t *ep = NULL;

	while ((j = list_next(it))) {
		orrery_admin_record_t r;

		if (!live(j) || orrery_admin_record_parse(j->admin_comment, &r) != 1)
			continue;
		if (!r.placed) {	/* a fallback-only record: not modelled */
			orrery_admin_record_clear(&r);
			continue;
		}
		orrery_admin_record_clear(&r);
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			xrecalloc(ep, cap, sizeof(*ep));
		}
		ep[n++] = r.epoch_us;
	}
	list_iterator_destroy(it);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		for (size_t m = 0; m < n; m++)
			k += ep[m] == ep[i];
		if (k > best_n || (k == best_n && ep[i] < best)) {
			best = ep[i];
			best_n = k;
		}
	}
	xfree(ep);
	return best;
}

static int add_one(orrery_cluster_t *c, job_record_t *j, const long *s2o,
		   int slurm_nodes, int64_t epoch, char *why, size_t len)
{
	orrery_admin_record_t r;
	orrery_profile_t *p = NULL;
	orrery_error_t err = { 0 };
	uint32_t *nodes = NULL;
	size_t n = 0;
	int cnt, rc = -1;

	switch (orrery_admin_record_parse(j->admin_comment, &r)) {
	case 0:
		return 0;	/* not placed by orrery: nothing to put back */
	case -1:
		snprintf(why, len, "its ORR1: record is malformed");
		return -1;
	}
	if (!r.placed) {	/* orrery gave it no evaluation: not modelled */
		rc = 0;
		goto out;
	}
	if (!r.profile) {
		snprintf(why, len, "its ORR1: record has no profile");
		goto out;
	}
	if (orrery_profile_parse(r.profile, &p, &err)) {
		snprintf(why, len, "its recorded profile: %.120s", err.message);
		goto out;
	}
	if ((cnt = bit_set_count(j->node_bitmap)) <= 0)
		goto out;
	nodes = xcalloc(cnt, sizeof(*nodes));
	for (int i = 0; i < bit_size(j->node_bitmap) && n < (size_t) cnt; i++) {
		if (!bit_test(j->node_bitmap, i))
			continue;
		if (i >= slurm_nodes || s2o[i] < 0) {
			snprintf(why, len, "node index %d is not in the switch tree", i);
			goto out;
		}
		nodes[n++] = (uint32_t) s2o[i];
	}
	if (orrery_cluster_add_job(c, j->job_id, nodes, n, p,
				   orr_recover_rebase_shift(r.shift_us, r.period_us,
							   r.epoch_us, epoch),
				   &err)) {
		snprintf(why, len, "%.150s", err.message);
		goto out;
	}
	rc = 1;
out:
	orrery_admin_record_clear(&r);
	orrery_profile_free(p);
	xfree(nodes);
	return rc;
}

void orr_recover_jobs(orrery_cluster_t *c, void *jobs, const long *slurm2orr,
		      int slurm_nodes, int adopt_epoch,
		      orr_recover_result_t *res)
{
	list_itr_t *it;
	job_record_t *j;
	int64_t epoch;

	memset(res, 0, sizeof(*res));
	if (!c || !jobs || lib_missing())
		return;
	if (adopt_epoch && orrery_cluster_job_count(c) == 0 &&
	    (epoch = common_epoch(jobs)) > 0)
		orrery_cluster_set_epoch_us(c, epoch);
	epoch = orrery_cluster_epoch_us(c);
	it = list_iterator_create((list_t *) jobs);
	while ((j = list_next(it))) {
		char why[160] = "cannot be modelled";
		int rc;

		if (!live(j) || known(c, j->job_id))
			continue;
		rc = add_one(c, j, slurm2orr, slurm_nodes, epoch, why, sizeof(why));
		if (rc > 0) {
			res->recovered++;
		} else if (rc < 0) {
			if (!res->failed++)
				snprintf(res->first_failure,
					 sizeof(res->first_failure),
					 "JobId=%u: %.170s", j->job_id, why);
		}
	}
	list_iterator_destroy(it);
}
