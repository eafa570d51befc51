/*
 * relay.c - the node-local relay file.
 *
 * The controller's values (select plugin, job_begin) travel in the job's
 * SPANK environment, which reaches the prolog but never the tasks.  The
 * job_prolog hook (root, every node of the allocation with
 * PrologFlags=Alloc) writes them to RUNTIME_DIR/<jobid>, root's, mode 0600
 * (a job's profile and slot are its own); each step's slurmstepd reads
 * that file on its node as root (init_post_opt, task.c) for user_init;
 * job_epilog removes it.  No RPC per node per step.
 *
 * Format: at most OSP_RELAY_MAX bytes of "key=value\n" lines with the keys
 * below, each at most once.  The directory and file are root-owned and not
 * writable by others; the reader checks that, refuses links, and validates
 * every field again (numbers are digits only).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orrery_spank.h"

int osp_valid_int(const char *s)
{
	size_t n = strlen(s);
	char *end;
	long long v;

	if (n == 0 || n > 19 || strspn(s, "0123456789") != n)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0' && v >= 0;
}

int osp_valid_score(const char *s)
{
	size_t i = strspn(s, "0123456789");
	char *end;
	double v;

	if (i == 0 || i > 7)
		return 0;
	if (s[i] == '.') {
		size_t f = strspn(s + i + 1, "0123456789");

		if (f == 0 || f > 9 || s[i + 1 + f] != '\0')
			return 0;
	} else if (s[i] != '\0') {
		return 0;
	}
	v = strtod(s, &end);
	return *end == '\0' && v >= 0.0 && v <= 1e6;
}

int osp_expand_pattern(const char *pattern, const char *node,
		       int (*node_ok)(const char *), char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = pattern; *p; p++) {
		const char *add;
		char one[2] = { *p, 0 };

		if (p[0] == '%' && p[1] == 'n') {
			if (!node_ok(node))
				return -1;
			add = node;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			add = "%";
			p++;
		} else {
			add = one;
		}
		if (o + strlen(add) + 1 > len)
			return -1;
		memcpy(out + o, add, strlen(add));
		o += strlen(add);
	}
	out[o] = '\0';
	return 0;
}

/* A node name that cannot leave runtime_dir. */
static int relay_node_ok(const char *node)
{
	return node && node[0] && !strchr(node, '/') && node[0] != '.';
}

int osp_relay_dir(const char *node, char *out, size_t len)
{
	return osp_expand_pattern(osp_conf.runtime_dir, node, relay_node_ok,
				  out, len);
}

int osp_job_path(const char *node, uint32_t job_id, const char *suffix,
		 char *out, size_t len)
{
	char dir[OSP_PATH_MAX];
	int n;

	if (osp_relay_dir(node, dir, sizeof(dir)) < 0)
		return -1;
	n = snprintf(out, len, "%s/%" PRIu32 "%s", dir, job_id, suffix);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

int osp_relay_path(const char *node, uint32_t job_id, char *out, size_t len)
{
	return osp_job_path(node, job_id, "", out, len);
}

int osp_runtime_dir_make(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		slurm_error(OSP_LOG_PREFIX "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022)) {
		slurm_error(OSP_LOG_PREFIX "%s must be a directory owned by root and writable only by root",
			    dir);
		return -1;
	}
	return 0;
}

int osp_relay_write(const char *node, uint32_t job_id, const struct osp_relay *r)
{
	char dir[OSP_PATH_MAX], path[OSP_PATH_MAX], tmp[OSP_PATH_MAX + 8];
	char buf[OSP_RELAY_MAX];
	int n, fd;

	if (osp_relay_dir(node, dir, sizeof(dir)) < 0 ||
	    osp_relay_path(node, job_id, path, sizeof(path)) < 0) {
		slurm_error(OSP_LOG_PREFIX "runtime_dir=%s: cannot form the path for node '%s'",
			    osp_conf.runtime_dir, node ? node : "(unknown)");
		return -1;
	}
	if (osp_runtime_dir_make(dir) < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "job_id=%" PRIu32 "\n", job_id);
#define ADD(key, field) \
	if (r->field[0] && n >= 0 && (size_t)n < sizeof(buf)) \
		n += snprintf(buf + n, sizeof(buf) - n, key "=%s\n", r->field);
	ADD("profile", profile);
	ADD("period_us", period_us);
	ADD("epoch_us", epoch_us);
	ADD("shift_us", shift_us);
	ADD("job_score", job_score);
	ADD("learn", learn);
#undef ADD
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		slurm_error(OSP_LOG_PREFIX "relay for job %" PRIu32 " exceeds %d bytes",
			    job_id, OSP_RELAY_MAX);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		slurm_error(OSP_LOG_PREFIX "create %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (write(fd, buf, n) != n || fsync(fd) < 0) {
		slurm_error(OSP_LOG_PREFIX "write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		slurm_error(OSP_LOG_PREFIX "rename %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int take(const char *path, int line, const char *key, const char *val,
		char *field, size_t size, int numeric)
{
	if (field[0]) {
		slurm_error(OSP_LOG_PREFIX "%s:%d: %s given twice", path, line, key);
		return -1;
	}
	if (strlen(val) >= size || !val[0] ||
	    (numeric == 1 && !osp_valid_int(val)) ||
	    (numeric == 2 && !osp_valid_score(val))) {
		slurm_error(OSP_LOG_PREFIX "%s:%d: invalid %s value", path, line, key);
		return -1;
	}
	strcpy(field, val);
	return 0;
}

int osp_relay_read(const char *node, uint32_t job_id, struct osp_relay *r)
{
	char path[OSP_PATH_MAX];
	char buf[OSP_RELAY_MAX + 1];
	struct stat st;
	ssize_t len;
	char *line, *save = NULL;
	int fd, lineno = 0, have_id = 0;

	memset(r, 0, sizeof(*r));
	if (osp_relay_path(node, job_id, path, sizeof(path)) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : (slurm_error(OSP_LOG_PREFIX "open %s: %s",
							  path, strerror(errno)), -1);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) || st.st_size > OSP_RELAY_MAX) {
		slurm_error(OSP_LOG_PREFIX "%s: not a root-owned file of at most %d bytes: ignored",
			    path, OSP_RELAY_MAX);
		close(fd);
		return -1;
	}
	len = read(fd, buf, OSP_RELAY_MAX);
	close(fd);
	if (len < 0 || memchr(buf, '\0', len)) {
		slurm_error(OSP_LOG_PREFIX "%s: unreadable or binary: ignored", path);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		int rc;

		lineno++;
		if (!eq) {
			slurm_error(OSP_LOG_PREFIX "%s:%d: expected key=value", path, lineno);
			goto bad;
		}
		*eq = '\0';
		if (strcmp(line, "job_id") == 0) {
			char want[16];

			snprintf(want, sizeof(want), "%" PRIu32, job_id);
			if (have_id++ || strcmp(eq + 1, want) != 0) {
				slurm_error(OSP_LOG_PREFIX "%s:%d: job_id does not match %s",
					    path, lineno, want);
				goto bad;
			}
			continue;
		}
		if (strcmp(line, "profile") == 0)
			rc = take(path, lineno, line, eq + 1, r->profile, sizeof(r->profile), 0);
		else if (strcmp(line, "period_us") == 0)
			rc = take(path, lineno, line, eq + 1, r->period_us, sizeof(r->period_us), 1);
		else if (strcmp(line, "epoch_us") == 0)
			rc = take(path, lineno, line, eq + 1, r->epoch_us, sizeof(r->epoch_us), 1);
		else if (strcmp(line, "shift_us") == 0)
			rc = take(path, lineno, line, eq + 1, r->shift_us, sizeof(r->shift_us), 1);
		else if (strcmp(line, "job_score") == 0)
			rc = take(path, lineno, line, eq + 1, r->job_score, sizeof(r->job_score), 2);
		else if (strcmp(line, "learn") == 0)
			rc = take(path, lineno, line, eq + 1, r->learn, sizeof(r->learn), 2);
		else {
			slurm_error(OSP_LOG_PREFIX "%s:%d: unknown key '%s'", path, lineno, line);
			goto bad;
		}
		if (rc < 0)
			goto bad;
	}
	if (!have_id) {
		slurm_error(OSP_LOG_PREFIX "%s: no job_id line", path);
		goto bad;
	}
	return 1;
bad:
	memset(r, 0, sizeof(*r));
	return -1;
}

int osp_relay_remove(const char *node, uint32_t job_id)
{
	char path[OSP_PATH_MAX];

	if (osp_relay_path(node, job_id, path, sizeof(path)) < 0)
		return -1;
	if (unlink(path) < 0 && errno != ENOENT) {
		slurm_error(OSP_LOG_PREFIX "unlink %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
