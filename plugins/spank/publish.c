/*
 * publish.c - hand a node's records to counters_publisher (job epilog,
 * root): ORRC1: (counters_job.c) and ORRS1: (gate_stats_job.c), in one
 * argument, so that one publisher per node and job writes them.
 *
 * The publisher adds them to the job's AdminComment in the accounting
 * database once the job's completion has reached it (the job is already
 * finished here: slurmctld no longer accepts updates), and writes one line
 * on how that went to RUNTIME_DIR/publish.log.  It runs detached: the
 * epilog never waits for accounting and never fails, a node is not drained
 * for a statistic.  See orrery-counters(7).
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

/* The publisher's standard error: DIR/publish.log, root's, appended,
 * started afresh past PUBLISH_LOG_MAX.  -1: /dev/null instead. */
#define PUBLISH_LOG_MAX (256 * 1024)
static int publish_log(const char *dir)
{
	char path[OSP_PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/publish.log", dir) >= (int) sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		close(fd);
		return -1;
	}
	if (st.st_size > PUBLISH_LOG_MAX && ftruncate(fd, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void osp_publish(uint32_t id, const char *node, const char *records)
{
	const char *cluster = getenv("SLURM_CLUSTER_NAME");
	const char *conf = getenv("SLURM_CONF");
	char ids[16], confvar[OSP_PATH_MAX + 16] = "", dir[OSP_PATH_MAX];
	char *argv[6], *envp[3];
	int n = 0, e = 0;
	pid_t pid;

	if (access(osp_conf.counters_publisher, X_OK) < 0) {
		slurm_error(OSP_LOG_PREFIX "counters_publisher=%s: %s: job %" PRIu32 "'s records not published",
			    osp_conf.counters_publisher, strerror(errno), id);
		return;
	}
	if (osp_expand_node(osp_conf.runtime_dir, node, dir, sizeof(dir)) < 0)
		dir[0] = '\0';	/* no log file: /dev/null */
	snprintf(ids, sizeof(ids), "%" PRIu32, id);
	argv[n++] = osp_conf.counters_publisher;
	argv[n++] = ids;
	argv[n++] = (char *) node;
	argv[n++] = (char *) records;
	if (cluster && orc_valid_node(cluster))
		argv[n++] = (char *) cluster;
	argv[n] = NULL;
	/* A clean environment: the epilog's holds the job's SPANK_* values. */
	envp[e++] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	if (conf && conf[0] == '/' && strlen(conf) < OSP_PATH_MAX) {
		snprintf(confvar, sizeof(confvar), "SLURM_CONF=%s", conf);
		envp[e++] = confvar;
	}
	envp[e] = NULL;

	pid = fork();
	if (pid < 0) {
		slurm_error(OSP_LOG_PREFIX "publish: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		int fd;

		setsid();
		if (fork() != 0)
			_exit(0);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			int lfd = dir[0] ? publish_log(dir) : -1;

			dup2(fd, 0);
			dup2(fd, 1);
			dup2(lfd >= 0 ? lfd : fd, 2);
			if (lfd > 2)
				close(lfd);
			if (fd > 2)
				close(fd);
		}
		signal(SIGPIPE, SIG_DFL);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

