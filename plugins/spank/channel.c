/*
 * channel.c - the live channel, node side (spank-orrery(8), CHANNEL).
 *
 * slurmctld (select/orrery) publishes a running job's new gate as the
 * ORRG1: token of its AdminComment, which only operators and SlurmUser can
 * set.  On every node of the job, one thread of one of the job's
 * slurmstepd processes (root) reads the job's record from slurmctld every
 * channel_poll_ms (one slurm_load_job RPC) and, when the generation is
 * newer than the one it wrote, writes RUNTIME_DIR/<jobid>.channel: root-
 * owned, mode 0644, in the root-owned relay directory, written to a
 * temporary name and renamed.  The tasks (liborrery-runtime) read that
 * file; none of them talks to slurmctld.  One poller per job per node:
 * each step's thread tries a non-blocking flock() on <jobid>.channel.lock
 * at every tick and only the holder polls, so a second step adds no RPC.
 *
 * slurmstepd drops its effective uid to the job's user around some
 * calls (spank_user, forking tasks), which changes it for every thread:
 * a write is made only while the euid is root and a file not owned by
 * root is never renamed into place (the next tick writes it).  A
 * controller that cannot be reached leaves the file as it is (the tasks
 * keep their last gate) and is logged once, and once when it answers
 * again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "channel_record.h"
#include "orrery_spank.h"

/* libslurm's: weak, so that a process without it (none we know of) loads
 * the plugin and simply has no channel. */
#pragma weak slurm_load_job
#pragma weak slurm_free_job_info_msg

static struct {
	pthread_t thread;
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	int running, stop;
	uint32_t job_id;
	int poll_ms, verbose;
	char path[OSP_PATH_MAX], lock_path[OSP_PATH_MAX + 8];
	uint64_t gen;		/* newest generation written here */
	int unreachable, malformed;
	uint64_t polls;
} ch = { .mtx = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

int osp_channel_path(const char *node, uint32_t job_id, char *out, size_t len)
{
	return osp_job_path(node, job_id, ".channel", out, len);
}

/* The generation of the file already there (a step started after an
 * update, or after the poller of an ended step wrote it). */
static uint64_t file_gen(void)
{
	char buf[ORRC_FILE_MAX + 1], why[128];
	orrc_record_t r;
	ssize_t n;
	int fd = open(ch.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, ORRC_FILE_MAX);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return orrc_parse_file(buf, ch.job_id, &r, why, sizeof(why)) == 1 ? r.gen : 0;
}

static int write_file(const orrc_record_t *r)
{
	char text[ORRC_FILE_MAX], tmp[OSP_PATH_MAX + 16];
	struct stat st;
	int fd, len;

	if (geteuid() != 0)
		return -1;	/* slurmstepd is the user for a moment */
	if (orrc_format_file(ch.job_id, r, text, sizeof(text)) < 0)
		return -1;
	len = (int)strlen(text);
	snprintf(tmp, sizeof(tmp), "%s.tmp", ch.path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || write(fd, text, len) != len) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	close(fd);
	if (rename(tmp, ch.path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void poll_once(void)
{
	job_info_msg_t *msg = NULL;
	orrc_record_t r;
	char why[128];
	int rc;

	ch.polls++;
	if (slurm_load_job(&msg, ch.job_id, SHOW_LOCAL) != SLURM_SUCCESS ||
	    !msg || msg->record_count < 1) {
		if (!ch.unreachable)
			slurm_error(OSP_LOG_PREFIX "channel: job %" PRIu32 ": cannot read the job's record from slurmctld (%s): its tasks keep their last gate parameters",
				    ch.job_id, slurm_strerror(errno));
		ch.unreachable = 1;
		if (msg)
			slurm_free_job_info_msg(msg);
		return;
	}
	if (ch.unreachable)
		slurm_info(OSP_LOG_PREFIX "channel: job %" PRIu32 ": slurmctld answers again",
			   ch.job_id);
	ch.unreachable = 0;
	osp_learn_tick(msg->job_array[0].batch_host,
		       msg->job_array[0].admin_comment, ch.verbose);
	rc = orrc_parse_comment(msg->job_array[0].admin_comment, &r, why, sizeof(why));
	slurm_free_job_info_msg(msg);
	if (rc < 0) {
		if (!ch.malformed)
			slurm_error(OSP_LOG_PREFIX "channel: job %" PRIu32 ": malformed " ORRC_TAG " record (%s): ignored",
				    ch.job_id, why);
		ch.malformed = 1;
		return;
	}
	ch.malformed = 0;
	if (rc == 0 || r.gen <= ch.gen)
		return;		/* nothing new (an older one is never written) */
	if (write_file(&r) == 0) {
		ch.gen = r.gen;
		if (ch.verbose)
			slurm_info(OSP_LOG_PREFIX "channel: job %" PRIu32 ": gen %" PRIu64 " (gate %s, period %" PRId64 " us, shift %" PRId64 " us, from %" PRId64 ") written to %s",
				   ch.job_id, r.gen, r.gate ? "on" : "off", r.period_us,
				   r.shift_us, r.apply_us, ch.path);
	}
}

/* The one poller of this job on this node, or -1. */
static int take_lock(void)
{
	int fd;

	if (geteuid() != 0)
		return -1;
	fd = open(ch.lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *poller(void *arg)
{
	int lock_fd = -1;

	(void)arg;
	pthread_mutex_lock(&ch.mtx);
	while (!ch.stop) {
		struct timespec ts;

		pthread_mutex_unlock(&ch.mtx);
		if (lock_fd < 0 && (lock_fd = take_lock()) >= 0)
			ch.gen = file_gen();
		if (lock_fd >= 0)
			poll_once();
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += ch.poll_ms / 1000;
		ts.tv_nsec += (long)(ch.poll_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&ch.mtx);
		while (!ch.stop &&
		       pthread_cond_timedwait(&ch.cond, &ch.mtx, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&ch.mtx);
	if (lock_fd >= 0)
		close(lock_fd);
	return NULL;
}

void osp_channel_start(spank_t sp)
{
	struct osp_relay r;
	const char *node = getenv("SLURMD_NODENAME");
	uint32_t id = 0;
	uid_t uid;

	if (ch.running || osp_conf.channel_poll_ms <= 0 || !slurm_load_job)
		return;
	uint32_t nodes = 0;

	if (spank_get_item(sp, S_JOB_ID, &id) != ESPANK_SUCCESS || !id)
		return;
	/* One node: no network phase, no gate (task.c), nothing to poll. */
	if (spank_get_item(sp, S_JOB_NNODES, &nodes) == ESPANK_SUCCESS && nodes == 1)
		return;
	/* Only jobs the controller gave gate values (the prolog relayed). */
	if (osp_relay_read(node, id, &r) <= 0 || !r.period_us[0])
		return;
	if (osp_channel_path(node, id, ch.path, sizeof(ch.path)) < 0)
		return;
	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		osp_learn_init(id, uid, node, &r);
	snprintf(ch.lock_path, sizeof(ch.lock_path), "%s.lock", ch.path);
	ch.job_id = id;
	ch.poll_ms = osp_conf.channel_poll_ms;
	ch.verbose = osp_conf.verbose;
	ch.stop = 0;
	ch.gen = 0;
	if (pthread_create(&ch.thread, NULL, poller, NULL) != 0) {
		slurm_error(OSP_LOG_PREFIX "channel: job %" PRIu32 ": cannot start the poller thread: the tasks keep their launch gate",
			    id);
		return;
	}
	ch.running = 1;
}

void osp_channel_stop(void)
{
	if (!ch.running)
		return;
	pthread_mutex_lock(&ch.mtx);
	ch.stop = 1;
	pthread_cond_signal(&ch.cond);
	pthread_mutex_unlock(&ch.mtx);
	/* At most one RPC's time (MessageTimeout): the plugin is unloaded
	 * after this. */
	pthread_join(ch.thread, NULL);
	ch.running = 0;
	if (ch.verbose)
		slurm_info(OSP_LOG_PREFIX "channel: job %" PRIu32 ": %" PRIu64 " polls, last gen %" PRIu64,
			   ch.job_id, ch.polls, ch.gen);
}

void osp_channel_remove(const char *node, uint32_t job_id)
{
	char path[OSP_PATH_MAX], lock[OSP_PATH_MAX + 8];

	if (osp_channel_path(node, job_id, path, sizeof(path)) < 0)
		return;
	snprintf(lock, sizeof(lock), "%s.lock", path);
	unlink(path);
	unlink(lock);
}
