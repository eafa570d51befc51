/*
 * place_cache.c - per-job cache of select/orrery_cons_tres (see
 * place_cache.h).  A GHashTable from job id to entry; eviction scans for
 * the least recently used entry, which only happens at `cap' live
 * entries (thousands of pending profiled jobs), so the common paths stay
 * a hash lookup.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "place_cache.h"

struct orr_cache {
	GHashTable *by_job;	/* GUINT_TO_POINTER(job id) -> orr_entry_t* */
	size_t cap;
	orr_free_fn free_profile;
	uint64_t tick;
	uint64_t created, dropped, evicted;
};

uint64_t orr_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void clear_ranking(orr_entry_t *e)
{
	for (size_t i = 0; i < e->n_cand; i++)
		free(e->cand[i].nodes);
	memset(e->cand, 0, sizeof(e->cand));
	e->n_cand = 0;
	e->n_total = 0;
	e->ranked = false;
	e->outcome = ORR_OUTCOME_UNKNOWN;
}

static void clear_profiles(orr_cache_t *c, orr_entry_t *e)
{
	if (e->resolved && c->free_profile)
		c->free_profile(e->resolved);
	if (e->parsed && c->free_profile)
		c->free_profile(e->parsed);
	e->resolved = e->parsed = NULL;
	e->resolved_nodes = 0;
	e->parse_failed = false;
}

static void entry_free(orr_cache_t *c, orr_entry_t *e)
{
	clear_ranking(e);
	clear_profiles(c, e);
	free(e->spec);
	free(e);
}

orr_cache_t *orr_cache_new(size_t cap, orr_free_fn free_profile)
{
	orr_cache_t *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->by_job = g_hash_table_new(g_direct_hash, g_direct_equal);
	c->cap = cap ? cap : 1;
	c->free_profile = free_profile;
	return c;
}

void orr_cache_free(orr_cache_t *c)
{
	GHashTableIter it;
	gpointer k, v;

	if (!c)
		return;
	g_hash_table_iter_init(&it, c->by_job);
	while (g_hash_table_iter_next(&it, &k, &v))
		entry_free(c, v);
	g_hash_table_destroy(c->by_job);
	free(c);
}

static void evict_lru(orr_cache_t *c)
{
	GHashTableIter it;
	gpointer k, v;
	orr_entry_t *old = NULL;

	g_hash_table_iter_init(&it, c->by_job);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		orr_entry_t *e = v;

		if (!old || e->last_use < old->last_use)
			old = e;
	}
	if (!old)
		return;
	g_hash_table_remove(c->by_job, GUINT_TO_POINTER(old->job_id));
	entry_free(c, old);
	c->evicted++;
}

orr_entry_t *orr_cache_get(orr_cache_t *c, uint32_t job_id, const char *spec,
			   bool *created)
{
	orr_entry_t *e = g_hash_table_lookup(c->by_job,
					     GUINT_TO_POINTER(job_id));

	*created = false;
	if (e && strcmp(e->spec, spec)) {
		char *s = strdup(spec);

		if (!s)
			return NULL;
		clear_ranking(e);
		clear_profiles(c, e);
		free(e->spec);
		e->spec = s;
		e->fallback[0] = '\0';
		e->held_since = 0;
		e->clear_at = 0;
		*created = true;
	}
	if (!e) {
		while (g_hash_table_size(c->by_job) >= c->cap)
			evict_lru(c);
		if (!(e = calloc(1, sizeof(*e))) || !(e->spec = strdup(spec))) {
			free(e);
			return NULL;
		}
		e->job_id = job_id;
		e->outcome = ORR_OUTCOME_UNKNOWN;
		g_hash_table_insert(c->by_job, GUINT_TO_POINTER(job_id), e);
		c->created++;
		*created = true;
	}
	e->last_use = ++c->tick;
	return e;
}

orr_entry_t *orr_cache_find(orr_cache_t *c, uint32_t job_id)
{
	return c ? g_hash_table_lookup(c->by_job, GUINT_TO_POINTER(job_id))
		 : NULL;
}

void orr_cache_unrank(orr_cache_t *c, orr_entry_t *e)
{
	(void) c;
	clear_ranking(e);
}

bool orr_key_equal(const orr_rank_key_t *a, const orr_rank_key_t *b)
{
	return a->version == b->version && a->bitmap_hash == b->bitmap_hash &&
		a->req_hash == b->req_hash && a->min_nodes == b->min_nodes;
}

bool orr_cache_set_ranking(orr_cache_t *c, orr_entry_t *e,
			   const orr_rank_key_t *key, size_t n_total,
			   const orr_cand_t *cands, size_t n)
{
	(void) c;
	clear_ranking(e);
	if (n > ORR_CACHE_MAX_CANDS)
		n = ORR_CACHE_MAX_CANDS;
	for (size_t i = 0; i < n; i++) {
		orr_cand_t *d = &e->cand[i];

		*d = cands[i];
		d->nodes = malloc((cands[i].n ? cands[i].n : 1) *
				  sizeof(uint32_t));
		if (!d->nodes) {
			e->n_cand = i;
			clear_ranking(e);
			return false;
		}
		memcpy(d->nodes, cands[i].nodes, cands[i].n * sizeof(uint32_t));
	}
	e->n_cand = n;
	e->n_total = n_total;
	e->key = *key;
	e->ranked = true;
	e->outcome = ORR_OUTCOME_UNKNOWN;
	return true;
}

void orr_cache_drop(orr_cache_t *c, uint32_t job_id)
{
	orr_entry_t *e = g_hash_table_lookup(c->by_job,
					     GUINT_TO_POINTER(job_id));

	if (!e)
		return;
	g_hash_table_remove(c->by_job, GUINT_TO_POINTER(job_id));
	entry_free(c, e);
	c->dropped++;
}

size_t orr_cache_sweep(orr_cache_t *c, bool (*gone)(uint32_t, void *),
		       void *arg)
{
	GHashTableIter it;
	gpointer k, v;
	size_t n = 0;

	g_hash_table_iter_init(&it, c->by_job);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		orr_entry_t *e = v;

		if (!gone(e->job_id, arg))
			continue;
		g_hash_table_iter_remove(&it);
		entry_free(c, e);
		c->dropped++;
		n++;
	}
	return n;
}

void orr_cache_stats(const orr_cache_t *c, orr_cache_stats_t *s)
{
	s->live = c ? g_hash_table_size(c->by_job) : 0;
	s->created = c ? c->created : 0;
	s->dropped = c ? c->dropped : 0;
	s->evicted = c ? c->evicted : 0;
}
