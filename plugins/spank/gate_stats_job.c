/*
 * gate_stats_job.c - the gate's statistics per job into accounting
 * (plugstack gate_stats=1; spank-orrery(8), orrery-sacct(1)).
 *
 * job prolog (root, every node of an orrery job): make
 * RUNTIME_DIR/<jobid>.gate, a directory of the job's user, mode 0700.
 * user_init (task.c): ORRERY_RUNTIME_JOB_STATS names it in every task that
 * gets a slot; the runtime writes HOST.STEP.PID.stats there when the process
 * ends, and rewrites it every 2 s while it runs (a killed process never
 * reaches its end).
 * job epilog (root, same nodes): sum those files into this node's ORRS1:
 * record for the publisher (publish.c) and remove the directory.
 *
 * The epilog reads files a user wrote, as root: no name is followed as a
 * link (the directory is opened with O_NOFOLLOW, files with openat and
 * O_NOFOLLOW), only regular files owned by the job's user are read (a
 * hard link to someone else's file keeps its owner), each at most
 * OGS_FILE_MAX bytes and OGS_FILES_MAX files; what does not pass is
 * counted as bad=, never read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"
#include "gate_stats.h"
#include "orrery_spank.h"

int osp_gate_stats_dir(const char *node, uint32_t id, char *out, size_t len)
{
	return osp_job_path(node, id, ".gate", out, len);
}

static int job_owner(spank_t sp, uid_t *uid, gid_t *gid)
{
	if (spank_get_item(sp, S_JOB_UID, uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, gid) != ESPANK_SUCCESS)
		return -1;
	return 0;
}

void osp_gate_stats_prolog(spank_t sp, uint32_t id)
{
	const char *node = getenv("SLURMD_NODENAME");
	char top[OSP_PATH_MAX], path[OSP_PATH_MAX];
	struct stat st;
	uid_t uid;
	gid_t gid;
	int fd;

	if (job_owner(sp, &uid, &gid) < 0) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": no user id: no statistics", id);
		return;
	}
	if (osp_relay_dir(node, top, sizeof(top)) < 0 ||
	    osp_gate_stats_dir(node, id, path, sizeof(path)) < 0) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: runtime_dir=%s: cannot form the path for node '%s'",
			    osp_conf.runtime_dir, node ? node : "(unknown)");
		return;
	}
	if (osp_runtime_dir_make(top) < 0)
		return;
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: mkdir %s: %s", path, strerror(errno));
		return;
	}
	/* Made now, or left by an earlier run of this job on this node (a
	 * requeue): either way a directory, and ours or the job's user's. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != uid) ||
	    fchown(fd, uid, gid) < 0 || fchmod(fd, 0700) < 0) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: %s: not a directory this job can own: no statistics",
			    path);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if (osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": %s", id, path);
}

/* Read one entry of the job's directory into *t, if it is a statistics
 * file of the job's user; 1 read, 0 not a statistics file, -1 refused
 * (why logged once per job by the caller through *why). */
static int read_one(int dfd, const char *name, uid_t uid,
		    struct ogs_totals *t, char *why, size_t whylen)
{
	size_t nl = strlen(name);
	char *text;
	struct stat st;
	ssize_t got;
	int fd, rc;

	if (nl < 7 || strcmp(name + nl - 6, ".stats") != 0)
		return 0;	/* a temporary file, or not the runtime's */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    st.st_size > OGS_FILE_MAX) {
		snprintf(why, whylen, "%s: not a regular file of the job's user, or over %d bytes",
			 name, OGS_FILE_MAX);
		close(fd);
		return -1;
	}
	if (!(text = malloc(OGS_FILE_MAX + 1))) {
		close(fd);
		return -1;
	}
	got = read(fd, text, OGS_FILE_MAX);
	close(fd);
	if (got < 0) {
		snprintf(why, whylen, "%s: %s", name, strerror(errno));
		free(text);
		return -1;
	}
	text[got] = '\0';
	if (strlen(text) != (size_t) got) {
		snprintf(why, whylen, "%s: has a NUL byte", name);
		rc = -1;
	} else {
		char err[128];

		rc = ogs_stats_add(text, t, err, sizeof(err)) < 0 ? -1 : 1;
		if (rc < 0)
			snprintf(why, whylen, "%s: %s", name, err);
	}
	free(text);
	return rc;
}

/* Read the job's directory (path) into *t; the files are removed when
 * remove is set (the epilog).  0, or -1 when path is not the job's
 * directory (said, unless quiet; nothing read). */
static int sum_dir(const char *path, uint32_t id, uid_t uid, int remove,
		   int quiet, struct ogs_totals *t, char *why, size_t whylen)
{
	struct dirent *de;
	struct stat st;
	unsigned seen = 0;
	DIR *d;
	int dfd;

	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;	/* not an orrery job here, or no gate_stats at its start */
	if (fstat(dfd, &st) < 0 || st.st_uid != uid || !(d = fdopendir(dfd))) {
		if (!quiet)
			slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": %s is not the job's directory: not read",
				    id, path);
		close(dfd);
		return -1;
	}
	while ((de = readdir(d))) {
		int one;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (seen++ < OGS_FILES_MAX)
			one = read_one(dirfd(d), de->d_name, uid, t,
				       why[0] ? NULL : why, why[0] ? 0 : whylen);
		else
			one = -1;	/* counted, not read */
		if (one < 0)
			t->bad++;
		/* The files are the runtime's; whatever else the job put
		 * here goes too (a subdirectory only when empty). */
		if (remove && unlinkat(dirfd(d), de->d_name, 0) < 0 && errno == EISDIR)
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
	return 0;
}

int osp_gate_stats_now(const char *node, uint32_t id, uid_t uid,
		       struct ogs_totals *t)
{
	char path[OSP_PATH_MAX], why[8] = "";

	memset(t, 0, sizeof(*t));
	if (osp_gate_stats_dir(node, id, path, sizeof(path)) < 0)
		return -1;
	return sum_dir(path, id, uid, 0, 1, t, why, sizeof(why));
}

int osp_gate_stats_epilog(spank_t sp, uint32_t id, char *rec, size_t len)
{
	const char *node = getenv("SLURMD_NODENAME");
	char path[OSP_PATH_MAX], why[OSP_PATH_MAX + 160] = "";
	struct ogs_totals t;
	uid_t uid;
	gid_t gid;

	memset(&t, 0, sizeof(t));
	if (osp_gate_stats_dir(node, id, path, sizeof(path)) < 0)
		return 0;
	if (job_owner(sp, &uid, &gid) < 0) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": no owner: %s not read",
			    id, path);
		return 0;
	}
	if (sum_dir(path, id, uid, 1, 0, &t, why, sizeof(why)) < 0)
		return 0;
	if (rmdir(path) < 0)
		slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": %s left in place: %s",
			    id, path, strerror(errno));
	if (why[0])
		slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": %" PRIu64 " file(s) not counted; first: %s",
			    id, t.bad, why);
	/* Also when no task of the job used the runtime here (tasks=0):
	 * every node of the job then has a record, and one without is one
	 * whose record was lost (orrery-sacct's StatsMissing). */
	if (ogs_record_format(node, &t, rec, len) < 0) {
		slurm_error(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": node name '%s' cannot be recorded",
			    id, node ? node : "(unknown)");
		return 0;
	}
	if (osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "gate_stats: job %" PRIu32 ": %s", id, rec);
	return 1;
}
