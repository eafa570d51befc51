/*
 * counters_job.c - RDMA congestion counters per job (plugstack counters=1).
 *
 * job prolog (root, every node of the allocation): read the ports'
 * counters under sysfs_root and keep them in RUNTIME_DIR/<jobid>.counters.
 * job epilog (root, same nodes): read them again, compute this node's
 * deltas (contrib/inventory/counters.c: 32-bit wrap, 64-bit reset, missing
 * counters left out) into the ORRC1: record that publish.c hands to
 * counters_publisher.  See orrery-counters(7).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters.h"
#include "orrery_spank.h"

int osp_expand_node(const char *pattern, const char *node, char *out,
		    size_t len)
{
	return osp_expand_pattern(pattern, node, orc_valid_node, out, len);
}

static int snapshot_path(const char *node, uint32_t id, char *dir, char *path)
{
	if (osp_expand_node(osp_conf.runtime_dir, node, dir, OSP_PATH_MAX) < 0)
		return -1;
	return snprintf(path, OSP_PATH_MAX, "%s/%" PRIu32 ".counters", dir, id)
		< OSP_PATH_MAX ? 0 : -1;
}

static int sample_now(const char *node, struct orc_sample *s)
{
	char root[OSP_PATH_MAX], err[256];

	if (osp_expand_node(osp_conf.sysfs_root, node, root, sizeof(root)) < 0) {
		slurm_error(OSP_LOG_PREFIX "sysfs_root=%s: cannot form the path for node '%s'",
			    osp_conf.sysfs_root, node ? node : "(unknown)");
		return -1;
	}
	if (orc_read(root, s, err, sizeof(err)) < 0) {
		slurm_error(OSP_LOG_PREFIX "counters: %s", err);
		return -1;
	}
	return 0;
}

int osp_counters_prolog(spank_t sp, uint32_t id)
{
	const char *node = getenv("SLURMD_NODENAME");
	char dir[OSP_PATH_MAX], path[OSP_PATH_MAX], tmp[OSP_PATH_MAX + 8];
	struct orc_sample *s = malloc(sizeof(*s));
	FILE *f = NULL;
	int fd = -1;

	if (!s)
		return 0;
	if (sample_now(node, s) < 0 || s->n == 0)
		goto out;	/* no RDMA ports: nothing to record */
	if (snapshot_path(node, id, dir, path) < 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int) sizeof(tmp)) {
		slurm_error(OSP_LOG_PREFIX "counters: runtime_dir=%s: cannot form the path for node '%s'",
			    osp_conf.runtime_dir, node ? node : "(unknown)");
		goto out;
	}
	if (osp_runtime_dir_make(dir) < 0)
		goto out;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		slurm_error(OSP_LOG_PREFIX "counters: %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (orc_snapshot_write(f, s) < 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
		slurm_error(OSP_LOG_PREFIX "counters: cannot write %s", path);
		unlink(tmp);
		goto out;
	}
	if (osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "counters: job %" PRIu32 " start: %zu ports", id, s->n);
out:
	free(s);
	return 0;
}

/* Read and remove the prolog's snapshot: root's own file, no link. */
static int take_snapshot(const char *path, struct orc_sample *s)
{
	char err[256];
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    st.st_size > 64 * 1024 || !(f = fdopen(fd, "r"))) {
		close(fd);
		unlink(path);
		slurm_error(OSP_LOG_PREFIX "counters: %s is not root's snapshot: ignored", path);
		return -1;
	}
	rc = orc_snapshot_read(f, s, err, sizeof(err));
	fclose(f);
	unlink(path);
	if (rc < 0) {
		slurm_error(OSP_LOG_PREFIX "counters: %s: %s", path, err);
		return -1;
	}
	return 1;
}

int osp_counters_epilog(spank_t sp, uint32_t id, char *rec, size_t len)
{
	const char *node = getenv("SLURMD_NODENAME");
	char dir[OSP_PATH_MAX], path[OSP_PATH_MAX];
	struct orc_sample *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct orc_totals t;
	int rc = 0;

	if (!a || !b || snapshot_path(node, id, dir, path) < 0)
		goto out;
	if (take_snapshot(path, a) <= 0)
		goto out;	/* no start sample: nothing to attribute */
	if (sample_now(node, b) < 0)
		goto out;
	orc_delta(a, b, &t);
	if (orc_record_format(node, &t, rec, len) < 0) {
		slurm_error(OSP_LOG_PREFIX "counters: job %" PRIu32 ": node name '%s' cannot be recorded",
			    id, node ? node : "(unknown)");
		goto out;
	}
	if (osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "counters: job %" PRIu32 ": %s", id, rec);
	rc = 1;
out:
	free(a);
	free(b);
	return rc;
}
