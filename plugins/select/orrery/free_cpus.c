/*
 * free_cpus.c - nodes with CPUs enough left for a job.
 *
 * Why: a job that may share nodes is offered every node that is up and in
 * its partition, however few of its cores are left; cons_tres checks the
 * cores itself.  orrery ranks among the offered nodes before cons_tres
 * sees them, so on a busy cluster its best candidates were nodes that
 * could not take the job: cons_tres refused them one after another and
 * the job landed where cons_tres alone puts it, after wasted calls
 * (doc/benchmark-report.md, "select plugin job_test cost").
 *
 * The count is rebuilt from the job records at each ranking (rankings are
 * cached, and made only for a job that cons_tres can start now), not kept
 * across calls: the job records are what cons_tres's own node usage is
 * made from, and there is no event orrery could miss.  It is a filter,
 * not a decision: cons_tres still allocates, and where the two counts
 * differ (memory, GRES, cores held by reservations) it refuses the
 * candidate and the next is tried.
 */
#include "config.h"	/* Slurm's */

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"

#include "free_cpus.h"

/* CPUs of job_ptr's allocation on each node, added into used[]. */
static void add_job_cpus(const job_record_t *job_ptr, uint32_t *used,
			 int n_nodes)
{
	const job_resources_t *r = job_ptr->job_resrcs;
	int first, last, k = 0;

	if (!r || !r->node_bitmap || !r->cpus)
		return;
	if ((first = bit_ffs(r->node_bitmap)) < 0)
		return;
	last = bit_fls(r->node_bitmap);
	for (int i = first; i <= last; i++) {
		if (!bit_test(r->node_bitmap, i))
			continue;
		if (i < n_nodes && k < (int) r->nhosts)
			used[i] += r->cpus[k];
		k++;
	}
}

bitstr_t *orr_nodes_with_free_cpus(bitstr_t *offered, uint32_t need,
				   list_t *jobs)
{
	int n_nodes = MIN(node_record_count, (int) bit_size(offered));
	uint32_t *used;
	bitstr_t *fit;
	list_itr_t *it;
	job_record_t *job_ptr;

	if (!jobs)
		return NULL;
	used = xcalloc(n_nodes > 0 ? n_nodes : 1, sizeof(uint32_t));
	it = list_iterator_create(jobs);
	while ((job_ptr = list_next(it)))
		if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
			add_job_cpus(job_ptr, used, n_nodes);
	list_iterator_destroy(it);

	fit = bit_alloc(bit_size(offered));
	for (int i = 0; i < n_nodes; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];
		uint32_t cpus;

		if (!node_ptr || !bit_test(offered, i))
			continue;
		cpus = node_ptr->cpus_efctv ? node_ptr->cpus_efctv :
					      node_ptr->cpus;
		if (used[i] < cpus && cpus - used[i] >= need)
			bit_set(fit, i);
	}
	xfree(used);
	return fit;
}
