/*
 * options.c - a profiled job keeps the meaning of its Slurm options.
 *
 * orrery narrows the node bitmap cons_tres chooses from; everything a
 * job's options say is still cons_tres's to decide, with two kinds of
 * exception:
 *
 *   - options that constrain which nodes go together in a way a narrowed
 *     bitmap would change or break (--contiguous, -w/--nodelist, the
 *     components of a heterogeneous job, a job that preempts others):
 *     the job is left to cons_tres as it is, and the reason recorded;
 *   - options that decide how many nodes (-N min-max, --spread-job,
 *     --ntasks-per-node, --gpus, --distribution=plane) or how many leaf
 *     switches (--switches): orrery ranks candidates of exactly the size
 *     cons_tres chose on the full set, and takes a narrowed answer only
 *     if it has that size and no more switches than allowed.
 *
 * Options that only shrink the offered set (-x/--exclude, partitions,
 * reservations, --exclusive, which removes shared nodes, features) are
 * kept by construction: slurmctld applies them to the bitmap before
 * job_test, and orrery only chooses inside it.
 */
#include "config.h"	/* Slurm's */

#include <stdio.h>

#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "ctld_state.h"

#include "options.h"

const char *orr_option_unkept(const job_record_t *job_ptr,
			      list_t *preemptee_candidates)
{
	const job_details_t *d = job_ptr->details;

	if (d && d->contiguous)
		return "option:contiguous";
	if (d && d->req_node_bitmap && bit_set_count(d->req_node_bitmap))
		return "option:nodelist";
	/* Components are tested one by one; a profile describes the job. */
	if (job_ptr->het_job_id)
		return "option:het-job";
	if (preemptee_candidates && list_count(preemptee_candidates))
		return "option:preemption";
	return NULL;
}

int orr_leaf_switch_count(bitstr_t *nodes)
{
	int n = 0;

	if (!nodes)
		return 0;
	/* The tree the model was built from (the caller holds the lock). */
	for (int i = 0; i < orr_g.switches.count; i++) {
		const orr_switch_t *s = &orr_g.switches.sw[i];

		if (s->level == 0 && s->node_bitmap &&
		    bit_size(s->node_bitmap) == bit_size(nodes) &&
		    bit_overlap_any(s->node_bitmap, nodes))
			n++;
	}
	return n;
}

bool orr_answer_keeps_options(const job_record_t *job_ptr, bitstr_t *full,
			      bitstr_t *answer, char *why, size_t why_len)
{
	int want = bit_set_count(full), got = bit_set_count(answer);

	if (got != want) {
		snprintf(why, why_len, "node count %d, cons_tres's %d", got,
			 want);
		return false;
	}
	if (job_ptr->req_switch) {
		int lf = orr_leaf_switch_count(full);
		int la = orr_leaf_switch_count(answer);
		int allowed = (int) job_ptr->req_switch > lf ?
			(int) job_ptr->req_switch : lf;

		if (la > allowed) {
			snprintf(why, why_len,
				 "%d leaf switches, --switches=%u allows %d",
				 la, job_ptr->req_switch, allowed);
			return false;
		}
	}
	return true;
}
