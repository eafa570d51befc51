/*
 * rdma.c - RDMA ports through struct inv_rdma_ops; the sysfs
 * implementation; Ethernet interfaces from sysfs.  See rdma.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma.h"

uint64_t inv_speed_lane_mbps(uint8_t s)
{
	switch (s) {
	case 1:   return 2500;		/* SDR   */
	case 2:   return 5000;		/* DDR   */
	case 4:   return 10000;		/* QDR   */
	case 8:   return 10000;		/* FDR10 */
	case 16:  return 14000;		/* FDR   */
	case 32:  return 25000;		/* EDR   */
	case 64:  return 50000;		/* HDR   */
	case 128: return 100000;	/* NDR   */
	default:  return 0;
	}
}

unsigned inv_width_lanes(uint8_t w)
{
	switch (w) {
	case 1:  return 1;
	case 2:  return 4;
	case 4:  return 8;
	case 8:  return 12;
	case 16: return 2;
	default: return 0;
	}
}

const char *inv_link_layer_name(enum inv_link_layer l)
{
	return l == INV_LL_INFINIBAND ? "InfiniBand" :
	       l == INV_LL_ETHERNET ? "Ethernet" : "unknown";
}

int inv_parse_sysfs_rate(const char *s, uint64_t *mbps)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || v < 0 || v > 1e6 || strncmp(end, " Gb/sec", 7) != 0)
		return -1;
	*mbps = (uint64_t) (v * 1000.0 + 0.5);
	return 0;
}

int inv_rdma_list(const struct inv_rdma_ops *ops, struct inv_rdma_port *out,
		  int max, char *err, size_t errlen)
{
	static char names[INV_DEVS_MAX][INV_DEV_NAME];
	int nd = ops->devices(ops->ctx, names, INV_DEVS_MAX);
	int n = 0;

	if (nd < 0) {
		snprintf(err, errlen, "%s: cannot list RDMA devices", ops->name);
		return -1;
	}
	for (int d = 0; d < nd; d++) {
		int np = ops->port_count(ops->ctx, names[d]);

		for (int p = 1; p <= np && n < max; p++) {
			struct inv_port_attr a;
			struct inv_rdma_port *o = &out[n];

			memset(&a, 0, sizeof(a));
			if (ops->query_port(ops->ctx, names[d], (unsigned) p, &a) < 0)
				continue;
			memset(o, 0, sizeof(*o));
			memcpy(o->dev, names[d], sizeof(o->dev));
			o->dev[sizeof(o->dev) - 1] = '\0';
			o->port = (unsigned) p;
			o->active = a.active;
			o->layer = a.layer;
			o->rate_mbps = a.rate_mbps ? a.rate_mbps :
				inv_speed_lane_mbps(a.active_speed) *
				inv_width_lanes(a.active_width);
			if (!a.active)
				o->rate_mbps = 0;
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------ sysfs */

static int plain(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < INV_DEV_NAME && s[0] != '.' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == n;
}

static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	/* mlx5_2 before mlx5_10: shorter first, then by text. */
	size_t la = strlen(a), lb = strlen(b);

	return la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
}

static int sysfs_devices(void *ctx, char (*names)[INV_DEV_NAME], int max)
{
	char path[4096];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband", (const char *) ctx);
	if (!(d = opendir(path))) {
		snprintf(path, sizeof(path), "%s/class", (const char *) ctx);
		return errno == ENOENT && access(path, F_OK) == 0 ? 0 : -1;
	}
	while ((e = readdir(d)) && n < max)
		if (plain(e->d_name))
			snprintf(names[n++], INV_DEV_NAME, "%s", e->d_name);
	closedir(d);
	qsort(names, (size_t) n, INV_DEV_NAME, cmp_name);
	return n;
}

static int sysfs_port_count(void *ctx, const char *dev)
{
	char path[4096];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports",
		 (const char *) ctx, dev);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		int p = atoi(e->d_name);

		if (p > n && p < 256 && strspn(e->d_name, "0123456789") == strlen(e->d_name))
			n = p;
	}
	closedir(d);
	return n;
}

static int sysfs_query_port(void *ctx, const char *dev, unsigned port,
			    struct inv_port_attr *a)
{
	char base[4096], path[4200], buf[128];

	snprintf(base, sizeof(base), "%s/class/infiniband/%s/ports/%u",
		 (const char *) ctx, dev, port);
	snprintf(path, sizeof(path), "%s/state", base);
	if (read_line(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "4: ACTIVE" */
	a->active = atoi(buf) == 4;
	snprintf(path, sizeof(path), "%s/link_layer", base);
	if (read_line(path, buf, sizeof(buf)) == 0)
		a->layer = strcmp(buf, "InfiniBand") == 0 ? INV_LL_INFINIBAND :
			   strcmp(buf, "Ethernet") == 0 ? INV_LL_ETHERNET :
			   INV_LL_UNKNOWN;
	snprintf(path, sizeof(path), "%s/rate", base);
	if (read_line(path, buf, sizeof(buf)) == 0)
		inv_parse_sysfs_rate(buf, &a->rate_mbps);
	return 0;
}

void inv_rdma_sysfs_ops(struct inv_rdma_ops *ops, const char *root)
{
	ops->name = "sysfs";
	ops->devices = sysfs_devices;
	ops->port_count = sysfs_port_count;
	ops->query_port = sysfs_query_port;
	ops->ctx = (void *) root;
}

static int cmp_netdev(const void *a, const void *b)
{
	return cmp_name(((const struct inv_netdev *) a)->name,
			((const struct inv_netdev *) b)->name);
}

int inv_netdev_list(const char *root, struct inv_netdev *out, int max,
		    char *err, size_t errlen)
{
	char path[4096], buf[64];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/net", root);
	if (!(d = opendir(path))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && n < max) {
		struct inv_netdev *o = &out[n];
		long long v;

		if (!plain(e->d_name))
			continue;
		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "%s", e->d_name);
		snprintf(path, sizeof(path), "%s/class/net/%s/type", root, e->d_name);
		o->type = read_line(path, buf, sizeof(buf)) == 0 ? atoi(buf) : 0;
		if (o->type == 772)	/* loopback */
			continue;
		snprintf(path, sizeof(path), "%s/class/net/%s/operstate", root, e->d_name);
		o->up = read_line(path, buf, sizeof(buf)) == 0 && strcmp(buf, "up") == 0;
		snprintf(path, sizeof(path), "%s/class/net/%s/speed", root, e->d_name);
		if (o->up && read_line(path, buf, sizeof(buf)) == 0 &&
		    (v = atoll(buf)) > 0 && v < 100000000)
			o->speed_mbps = (uint64_t) v;
		n++;
	}
	closedir(d);
	qsort(out, (size_t) n, sizeof(*out), cmp_netdev);
	return n;
}
