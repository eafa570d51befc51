/*
 * orrery-netbed-trainer - a synthetic data-parallel trainer without a GPU:
 * per iteration a compute phase of a given time, then a real ring
 * all-reduce of a given size over TCP between the job's ranks (--channels
 * K connections to the right neighbour and K from the left, each ring
 * step's chunk striped over them, as NCCL spreads a ring over channels;
 * default 1), gated by
 * liborrery-runtime.  Prints one line per iteration and a summary with
 * the gate's statistics; --print-profile prints the comm profile derived
 * from its own parameters and the ring's bottleneck rate.  See
 * orrery-netbed(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>

#include "orrery_runtime.h"

/* The default share of a shaped rate a ring step gets as payload
 * (--efficiency), as measured on orrery-netbed's fabric with 1500-byte
 * frames: 1448 of every 1514 bytes on the wire (0.956), less the ring's
 * per-step synchronisation on a loaded 2-core host (a 3-rank ring at
 * 100 Mbit/s alone: 182-189 ms for 168 ms of bits, 0.89 to 0.92), less
 * 5-8% so that a gated job's Up phase fits its slot with a gap to its
 * neighbour's and the gate does not miss slots on jitter.  With 9000-byte
 * frames the same ring reaches 0.97. */
#define NETBED_EFFICIENCY 0.84
#define MAX_CHANNELS 16

struct opts {
	int rank, nranks, port, iters, warmup, spin, print_profile, window, channels;
	double compute_ms, rate_mbit, efficiency;
	long long bytes, start_at_us;
	const char *peers, *cc, *out;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "orrery-netbed-trainer: error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_until_us(int64_t t)
{
	struct timespec ts = {t / 1000000, (long)(t % 1000000) * 1000};
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static long long num(const char *s, const char *what, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die("%s: not an integer in range", what);
	return v;
}

static double dnum(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 0) || v > 1e9)
		die("%s: not a non-negative number", what);
	return v;
}

/* Bytes one rank sends per iteration in a ring all-reduce of `bytes'. */
static double ring_bytes(long long bytes, int n)
{
	return n < 2 ? 0 : 2.0 * (n - 1) / n * (double)bytes;
}

/* The Up phase is the ring's bytes at --efficiency of the rate, so that
 * it holds the transfer with room to spare (the gate's slot); its demand
 * is those bytes over that time, the average rate the phase needs, so
 * that a model sending demand x duration sends what the ring sends (at
 * the full rate it would send the slack as well: 1.18x the bytes at
 * 0.85). */
static void print_profile(const struct opts *o)
{
	double bits = ring_bytes(o->bytes, o->nranks) * 8;
	double up_ms = bits / (o->rate_mbit * 1e3) / o->efficiency;
	long c = (long)(o->compute_ms + 0.5), u = (long)(up_ms + 0.999);
	long d = (long)(bits / ((double)u * 1e3) + 0.5);
	printf("period=%ldms;up=%ldms+%ldms@%ldMbps\n", c + u, c, u, d > 0 ? d : 1);
}

static const char *peer(const struct opts *o, int r, char *buf, size_t n)
{
	const char *p = o->peers;
	for (int i = 0; i < r && p; i++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p) {
		char r_s[16];
		snprintf(r_s, sizeof r_s, "%d", r);
		die("--peers: no address for rank %s", r_s);
	}
	size_t len = strcspn(p, ",");
	if (len == 0 || len >= n)
		die("--peers: bad address in '%s'", o->peers);
	memcpy(buf, p, len);
	buf[len] = 0;
	return buf;
}

static void tune(int fd, const struct opts *o)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (o->window > 0) {
		/* A bounded window (receive buffer): a lone flow fits the
		 * shaped queues' buffer, two colliding flows overflow it. */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->window, sizeof o->window);
	}
	if (o->cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cc, strlen(o->cc)))
		die("TCP_CONGESTION %s refused", o->cc);
}

/* One connection to the right neighbour for channel ch; the handshake
 * names this rank and the channel. */
static int connect_right(const struct opts *o, int ch, int64_t deadline)
{
	char addr[256], port[16];
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
	peer(o, (o->rank + 1) % o->nranks, addr, sizeof addr);
	snprintf(port, sizeof port, "%d", o->port);
	if (getaddrinfo(addr, port, &hints, &ai))
		die("cannot resolve %s", addr);
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		tune(fd, o);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			uint32_t me = htonl((uint32_t)o->rank << 8 | (uint32_t)ch);
			if (write(fd, &me, 4) != 4)
				die("handshake to %s failed", addr);
			freeaddrinfo(ai);
			return fd;
		}
		close(fd);
		if (now_us() > deadline)
			die("cannot connect to the right neighbour %s", addr);
		usleep(100000);
	}
}

/* The K connections from the left neighbour, each in its channel's slot. */
static void accept_left(int lfd, const struct opts *o, int *left)
{
	for (int i = 0; i < o->channels; i++) {
		uint32_t who;
		int ch, fd = accept(lfd, NULL, NULL);
		if (fd < 0 || read(fd, &who, 4) != 4)
			die("accept from the left neighbour failed%s", "");
		who = ntohl(who);
		ch = (int)(who & 0xff);
		if ((int)(who >> 8) != (o->rank + o->nranks - 1) % o->nranks ||
		    ch >= o->channels || left[ch] >= 0)
			die("unexpected peer on the listening port%s", "");
		tune(fd, o);
		left[ch] = fd;
	}
}

/* One ring step: slen bytes to the right and rlen from the left, each
 * striped over the k channels (stripe i of a chunk on connection i; both
 * ends cut the same chunk the same way). */
static void xfer(const int *sfd, const char *sbuf, size_t slen, const int *rfd, char *rbuf,
		 size_t rlen, int k)
{
	size_t s[MAX_CHANNELS], r[MAX_CHANNELS], se[MAX_CHANNELS], re[MAX_CHANNELS];
	struct pollfd p[2 * MAX_CHANNELS];
	int left = 0;
	for (int i = 0; i < k; i++) {
		s[i] = slen * (size_t)i / (size_t)k, se[i] = slen * (size_t)(i + 1) / (size_t)k;
		r[i] = rlen * (size_t)i / (size_t)k, re[i] = rlen * (size_t)(i + 1) / (size_t)k;
		left += (s[i] < se[i]) + (r[i] < re[i]);
	}
	while (left > 0) {
		for (int i = 0; i < k; i++) {
			p[2 * i] = (struct pollfd){sfd[i], s[i] < se[i] ? POLLOUT : 0, 0};
			p[2 * i + 1] = (struct pollfd){rfd[i], r[i] < re[i] ? POLLIN : 0, 0};
		}
		if (poll(p, (nfds_t)(2 * k), 30000) <= 0)
			die("ring step stalled for 30 s%s", "");
		for (int i = 0; i < k; i++) {
			if (s[i] < se[i] && (p[2 * i].revents & (POLLOUT | POLLERR | POLLHUP))) {
				ssize_t n = send(sfd[i], sbuf + s[i], se[i] - s[i], MSG_DONTWAIT | MSG_NOSIGNAL);
				if (n < 0 && errno != EAGAIN)
					die("send to the right neighbour: %s", strerror(errno));
				if (n > 0 && (s[i] += (size_t)n) == se[i])
					left--;
			}
			if (r[i] < re[i] && (p[2 * i + 1].revents & (POLLIN | POLLERR | POLLHUP))) {
				ssize_t n = recv(rfd[i], rbuf + r[i], re[i] - r[i], MSG_DONTWAIT);
				if (n == 0)
					die("the left neighbour closed the connection%s", "");
				if (n < 0 && errno != EAGAIN)
					die("recv from the left neighbour: %s", strerror(errno));
				if (n > 0 && (r[i] += (size_t)n) == re[i])
					left--;
			}
		}
	}
}

/* Ring all-reduce (sum of floats): n-1 reduce-scatter steps, n-1
 * all-gather steps, each sending one chunk right and receiving one from
 * the left. */
static void allreduce(float *v, size_t count, int rank, int n, const int *right, const int *left,
		      int k, float *tmp)
{
	size_t chunk = (count + n - 1) / n;
#define LO(c) ((size_t)(c) * chunk < count ? (size_t)(c) * chunk : count)
#define HI(c) (LO(c) + chunk < count ? LO(c) + chunk : count)
	for (int st = 0; st < n - 1; st++) {
		int sc = (rank - st + n) % n, rc = (rank - st - 1 + n) % n;
		xfer(right, (char *)(v + LO(sc)), (HI(sc) - LO(sc)) * 4, left, (char *)tmp,
		     (HI(rc) - LO(rc)) * 4, k);
		for (size_t i = LO(rc); i < HI(rc); i++)
			v[i] += tmp[i - LO(rc)];
	}
	for (int st = 0; st < n - 1; st++) {
		int sc = (rank + 1 - st + n) % n, rc = (rank - st + n) % n;
		xfer(right, (char *)(v + LO(sc)), (HI(sc) - LO(sc)) * 4, left, (char *)(v + LO(rc)),
		     (HI(rc) - LO(rc)) * 4, k);
	}
#undef LO
#undef HI
}

static void compute(double ms, int spin)
{
	int64_t end = now_us() + (int64_t)(ms * 1000);
	if (!spin) {
		sleep_until_us(end);
		return;
	}
	volatile double x = 1;
	while (now_us() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: orrery-netbed-trainer --peers A0,A1,... [--rank R] [--port P]\n"
		"         [--iters N] [--warmup W] [--compute-ms C] [--spin] --bytes B\n"
		"         [--window BYTES] [--cc NAME] [--channels K] [--start-at US]\n"
		"         [--out FILE]\n"
		"       orrery-netbed-trainer --print-profile --ranks N --bytes B\n"
		"         --compute-ms C --rate MBIT [--efficiency E]\n");
}

int main(int argc, char **argv)
{
	struct opts o = {.rank = -1, .nranks = 0, .port = 31100, .iters = 20, .warmup = 2,
			 .compute_ms = 100, .bytes = 1 << 20, .efficiency = NETBED_EFFICIENCY,
			 .channels = 1};
	enum { O_PEERS = 256, O_RANK, O_PORT, O_ITERS, O_WARM, O_COMP, O_SPIN, O_BYTES, O_WIN,
	       O_CC, O_START, O_OUT, O_PROF, O_RANKS, O_RATE, O_EFF, O_CHAN };
	static const struct option lo[] = {
		{"peers", 1, 0, O_PEERS}, {"rank", 1, 0, O_RANK}, {"port", 1, 0, O_PORT},
		{"iters", 1, 0, O_ITERS}, {"warmup", 1, 0, O_WARM}, {"compute-ms", 1, 0, O_COMP},
		{"spin", 0, 0, O_SPIN}, {"bytes", 1, 0, O_BYTES}, {"window", 1, 0, O_WIN},
		{"cc", 1, 0, O_CC}, {"start-at", 1, 0, O_START}, {"out", 1, 0, O_OUT},
		{"print-profile", 0, 0, O_PROF}, {"ranks", 1, 0, O_RANKS}, {"rate", 1, 0, O_RATE},
		{"efficiency", 1, 0, O_EFF}, {"channels", 1, 0, O_CHAN},
		{"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	int c, port_set = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_PEERS: o.peers = optarg; break;
		case O_RANK: o.rank = (int)num(optarg, "--rank", 0, 4095); break;
		case O_PORT: o.port = (int)num(optarg, "--port", 1024, 65535); port_set = 1; break;
		case O_ITERS: o.iters = (int)num(optarg, "--iters", 1, 1000000); break;
		case O_WARM: o.warmup = (int)num(optarg, "--warmup", 0, 1000000); break;
		case O_COMP: o.compute_ms = dnum(optarg, "--compute-ms"); break;
		case O_SPIN: o.spin = 1; break;
		case O_BYTES: o.bytes = num(optarg, "--bytes", 4, 1LL << 32); break;
		case O_WIN: o.window = (int)num(optarg, "--window", 4096, 1 << 28); break;
		case O_CC: o.cc = optarg; break;
		case O_CHAN: o.channels = (int)num(optarg, "--channels", 1, MAX_CHANNELS); break;
		case O_START: o.start_at_us = num(optarg, "--start-at", 0, 1LL << 62); break;
		case O_OUT: o.out = optarg; break;
		case O_PROF: o.print_profile = 1; break;
		case O_RANKS: o.nranks = (int)num(optarg, "--ranks", 1, 4096); break;
		case O_RATE: o.rate_mbit = dnum(optarg, "--rate"); break;
		case O_EFF:
			o.efficiency = dnum(optarg, "--efficiency");
			if (o.efficiency < 0.1 || o.efficiency > 1)
				die("--efficiency %s: accepted 0.1 to 1", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (o.print_profile) {
		if (o.nranks < 2 || o.rate_mbit <= 0)
			die("--print-profile needs --ranks N (>= 2) and --rate MBIT%s", "");
		print_profile(&o);
		return 0;
	}
	/* orrery-netbed task sets these for a Slurm job's tasks. */
	if (!o.peers)
		o.peers = getenv("NETBED_PEERS");
	if (!o.peers)
		die("--peers A0,A1,... (or NETBED_PEERS) is required%s", "");
	if (!port_set && getenv("NETBED_PORT"))
		o.port = (int)num(getenv("NETBED_PORT"), "NETBED_PORT", 1024, 65535);
	o.nranks = 1;
	for (const char *p = o.peers; *p; p++)
		o.nranks += *p == ',';
	if (o.rank < 0) {
		const char *r = getenv("SLURM_PROCID");
		o.rank = r ? (int)num(r, "SLURM_PROCID", 0, 4095) : 0;
	}
	if (o.rank >= o.nranks)
		die("rank beyond the --peers list%s", "");
	if (o.warmup >= o.iters)
		o.warmup = 0;
	FILE *out = o.out ? fopen(o.out, "w") : stdout;
	if (!out)
		die("cannot write %s", o.out);

	/* liborrery-runtime names the rank in its records and statistics
	 * from the environment; outside Slurm only --rank says it. */
	if (!getenv("SLURM_PROCID") && !getenv("RANK")) {
		char r_s[16];
		snprintf(r_s, sizeof r_s, "%d", o.rank);
		setenv("RANK", r_s, 0);
	}
	orrery_runtime_init();
	orrery_runtime_set_source("app");

	int right[MAX_CHANNELS], left[MAX_CHANNELS];
	for (int i = 0; i < MAX_CHANNELS; i++)
		right[i] = left[i] = -1;
	if (o.nranks > 1) {
		int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o.port)};
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		tune(lfd, &o);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, o.channels + 4))
			die("cannot listen on port %s", strerror(errno));
		int64_t deadline = now_us() + 60000000;
		/* Even ranks connect first, odd ranks accept first: no
		 * ordering deadlock, and with 2 ranks two connections. */
		if (o.rank % 2 == 0) {
			for (int i = 0; i < o.channels; i++)
				right[i] = connect_right(&o, i, deadline);
			accept_left(lfd, &o, left);
		} else {
			accept_left(lfd, &o, left);
			for (int i = 0; i < o.channels; i++)
				right[i] = connect_right(&o, i, deadline);
		}
		close(lfd);
	}
	size_t count = (size_t)(o.bytes / 4);
	float *v = malloc(count * 4), *tmp = malloc(((count + o.nranks - 1) / o.nranks + 1) * 4);
	double *iter_ms = calloc((size_t)o.iters, sizeof *iter_ms);
	if (!v || !tmp || !iter_ms)
		die("out of memory%s", "");
	for (size_t i = 0; i < count; i++)
		v[i] = 1.0f;
	if (o.start_at_us) {
		if (now_us() > o.start_at_us)
			fprintf(stderr, "orrery-netbed-trainer: rank %d: --start-at passed %.0f ms ago; starting now\n",
				o.rank, (now_us() - o.start_at_us) / 1e3);
		sleep_until_us(o.start_at_us);
	}
	double sum = 0, comm_sum = 0;
	int64_t prev = now_us();
	for (int it = 0; it < o.iters; it++) {
		compute(o.compute_ms, o.spin);
		int64_t ready = now_us();
		int64_t waited = orrery_runtime_wait_for_slot();
		int64_t t1 = now_us();
		if (o.nranks > 1)
			allreduce(v, count, o.rank, o.nranks, right, left, o.channels, tmp);
		int64_t t2 = now_us();
		orrery_runtime_record(t1, t2, (uint64_t)o.bytes, "ring", "allreduce");
		/* Scale back so the values stay finite and checkable. */
		for (size_t i = 0; i < count; i++)
			v[i] /= (float)o.nranks;
		iter_ms[it] = (t2 - prev) / 1e3;
		fprintf(out, "iter=%d start_us=%lld iter_ms=%.3f compute_ms=%.3f wait_ms=%.3f comm_ms=%.3f\n", it,
			(long long)prev, iter_ms[it], (ready - prev) / 1e3, waited / 1e3, (t2 - t1) / 1e3);
		fflush(out);
		if (it >= o.warmup) {
			sum += iter_ms[it];
			comm_sum += (t2 - t1) / 1e3;
		}
		prev = t2;
	}
	int kept = o.iters - o.warmup;
	qsort(iter_ms + o.warmup, (size_t)kept, sizeof *iter_ms, cmp_d);
	int p99 = (int)((kept * 99 + 99) / 100) - 1; /* nearest rank */
	orrery_runtime_stats_t st;
	orrery_runtime_stats(&st);
	fprintf(out, "summary: rank=%d ranks=%d iters=%d warmup=%d iter_ms_mean=%.3f iter_ms_p99=%.3f comm_ms_mean=%.3f "
		"check=%g gate_active=%d period_us=%lld phases=%llu on_slot=%llu late=%llu missed=%llu "
		"wait_ms_total=%.1f disabled=%d slot_base_us=%lld\n",
		o.rank, o.nranks, o.iters, o.warmup, sum / kept, iter_ms[o.warmup + p99], comm_sum / kept,
		(double)v[0], st.active, (long long)st.period_us, (unsigned long long)st.phases,
		(unsigned long long)st.on_slot, (unsigned long long)st.late, (unsigned long long)st.missed,
		st.total_wait_us / 1e3, st.disabled, (long long)st.slot_base_us);
	if (out != stdout)
		fclose(out);
	orrery_runtime_finish();
	return 0;
}
