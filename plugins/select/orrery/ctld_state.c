/*
 * ctld_state.c - what the select plugin's slurmctld side shares between
 * its files (ctld_state.h): orrery.conf as loaded, the cluster model and
 * its mapping to Slurm's node table, the counters, and the two ways a
 * job's trouble is reported (fallback, periodic statistics line).
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "ctld_state.h"
#include "channel.h"
#include "learn.h"

#include <pthread.h>
#include <time.h>

#include "state_saver.h"

#define STATS_PERIOD 600	/* seconds between two statistics lines */

pthread_mutex_t orr_ctld_lock = PTHREAD_MUTEX_INITIALIZER;
orrery_conf_t orr_ocnf;
bool orr_hold_on;
bool orr_learn_on;
bool orr_conf_ok;
/* Hash of orrery.conf's text as last loaded (part of build_signature()). */
uint64_t orr_conf_hash;

struct orr_ctld_model orr_g = { .need_build = true };
struct orr_ctld_stats orr_stats;


void orr_bump_version_locked(void)
{
	orr_g.version++;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint64_t orr_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t orr_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

bool orr_debug(void)
{
	return orr_conf_ok && orr_ocnf.debug;
}

void orr_log_stats_locked(bool force)
{
	time_t now = time(NULL);
	orr_cache_stats_t cs;
	uint64_t saves, save_ns, coalesced, ch_pub, ch_dec, ch_realigns, ch_ns,
		 ch_dur_ns, l_taken, l_refused, l_retimed;

	if (!force && !orr_debug() && now - orr_stats.last_log < STATS_PERIOD)
		return;
	orr_stats.last_log = now;
	orr_cache_stats(orr_g.cache, &cs);
	orr_saver_stats(&saves, &save_ns, &coalesced);
	orr_channel_stats(&ch_pub, &ch_dec, &ch_realigns, &ch_ns, &ch_dur_ns);
	orr_learn_stats(&l_taken, &l_refused, &l_retimed);
	info("select/orrery: mode=%s profiled_tests=%"PRIu64
	     " placements=%"PRIu64" narrowed=%"PRIu64" begun=%"PRIu64
	     " fallbacks=%"PRIu64" jobs=%zu job_tests=%"PRIu64
	     " job_test_us=%"PRIu64" cons_tres_calls=%"PRIu64
	     " cons_tres_us=%"PRIu64" run_now_tests=%"PRIu64
	     " run_now_us=%"PRIu64" rank_hits=%"PRIu64" rank_misses=%"PRIu64
	     " rank_us=%"PRIu64" parses=%"PRIu64" tries_skipped=%"PRIu64
	     " holds=%"PRIu64
	     " cache_entries=%zu cache_evicted=%"PRIu64
	     " job_test_cpu_us=%"PRIu64" cons_tres_cpu_us=%"PRIu64
	     " run_now_cpu_us=%"PRIu64" kept_answers=%"PRIu64
	     " builds=%"PRIu64" build_cpu_us=%"PRIu64
	     " job_begin_us=%"PRIu64" job_begin_cpu_us=%"PRIu64" saves=%"PRIu64" save_us=%"PRIu64
	     " saves_coalesced=%"PRIu64
	     " channel_records=%"PRIu64" channel_decided=%"PRIu64
	     " channel_disk_us=%"PRIu64" realigns=%"PRIu64" realign_us=%"PRIu64
	     " learn_reports=%"PRIu64" learn_refused=%"PRIu64" learn_retimed=%"PRIu64,
	     orrery_mode_name(orr_conf_ok ? orr_ocnf.mode : ORRERY_MODE_OFF),
	     orr_stats.tested, orr_stats.placements, orr_stats.narrowed, orr_stats.begun,
	     orr_stats.fallbacks,
	     orr_g.cluster ? orrery_cluster_job_count(orr_g.cluster) : (size_t) 0,
	     __atomic_load_n(&orr_stats.jt_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&orr_stats.jt_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&orr_stats.ct_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&orr_stats.ct_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&orr_stats.run_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&orr_stats.run_ns, __ATOMIC_RELAXED) / 1000,
	     orr_stats.rank_hits, orr_stats.rank_misses, orr_stats.rank_ns / 1000,
	     orr_stats.parses, orr_stats.tries_skipped, orr_stats.holds, cs.live, cs.evicted,
	     __atomic_load_n(&orr_stats.jt_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&orr_stats.ct_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&orr_stats.run_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     orr_stats.kept, orr_stats.builds, orr_stats.build_cpu_ns / 1000,
	     orr_stats.begin_ns / 1000, orr_stats.begin_cpu_ns / 1000, saves, save_ns / 1000, coalesced,
	     ch_pub, ch_dec, ch_dur_ns / 1000, ch_realigns, ch_ns / 1000,
	     l_taken, l_refused, l_retimed);
}

void orr_fallback(job_record_t *job_ptr, const char *fmt, ...)
{
	char reason[ORRERY_ERRMSG_MAX + 128];
	va_list ap;
	static uint32_t last_job;
	static char last_reason[48];

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	orr_stats.fallbacks++;
	/* job_test runs every scheduling pass: say each reason once per
	 * job (the counter still counts every fallback). */
	if (job_ptr->job_id == last_job &&
	    !strncmp(reason, last_reason, sizeof(last_reason) - 1))
		return;
	last_job = job_ptr->job_id;
	{
		size_t l = strnlen(reason, sizeof(last_reason) - 1);

		memcpy(last_reason, reason, l);
		last_reason[l] = '\0';
	}
	info("select/orrery: %s, falling back to cons_tres for %pJ", reason,
	     job_ptr);
}

/* Slurm's bitstr_t words (22.05: BITSTR_OVERHEAD header words, bit i in
 * word i/64 at bit i%64), bits past the end masked. */
uint64_t orr_hash_bitmap(uint64_t h, bitstr_t *b)
{
	int64_t nbits;
	size_t words;
	const uint64_t *w;

	if (!b)
		return orr_hash_bytes(h, "-", 1);
	nbits = bit_size(b);
	words = (nbits + 63) / 64;
	w = (const uint64_t *) (b + BITSTR_OVERHEAD);
	h = orr_hash_bytes(h, &nbits, sizeof(nbits));
	for (size_t i = 0; i < words; i++) {
		uint64_t v = w[i];

		if (i + 1 == words && (nbits & 63))
			v &= (1ull << (nbits & 63)) - 1;
		h = orr_hash_bytes(h, &v, sizeof(v));
	}
	return h;
}
