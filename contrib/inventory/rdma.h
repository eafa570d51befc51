/*
 * rdma.h - RDMA ports and Ethernet interfaces with their link rates.
 *
 * The RDMA layer sits behind struct inv_rdma_ops, a narrow interface with
 * three implementations: libibverbs (ibv_get_device_list, ibv_query_port:
 * the node as the verbs stack sees it), sysfs (/sys/class/infiniband, also
 * on a recorded tree) and, in the tests, a fake.  Plain C.
 */
#ifndef ORRERY_RDMA_H
#define ORRERY_RDMA_H

#include <stddef.h>
#include <stdint.h>

#define INV_DEVS_MAX   64
#define INV_PORTS_MAX  128
#define INV_DEV_NAME   64

enum inv_link_layer { INV_LL_UNKNOWN = 0, INV_LL_INFINIBAND, INV_LL_ETHERNET };

/* What one port reports, in verbs terms. */
struct inv_port_attr {
	int active;			/* IBV_PORT_ACTIVE                    */
	enum inv_link_layer layer;
	uint8_t active_speed;		/* ibv_port_attr.active_speed code    */
	uint8_t active_width;		/* ibv_port_attr.active_width code    */
	uint64_t rate_mbps;		/* 0: derive from speed and width     */
};

struct inv_rdma_ops {
	const char *name;		/* "verbs", "sysfs", "fake"           */
	/* Device names, at most max; returns the count or -1. */
	int (*devices)(void *ctx, char (*names)[INV_DEV_NAME], int max);
	/* Number of physical ports of a device, or -1. */
	int (*port_count)(void *ctx, const char *dev);
	/* One port (1-based); 0 or -1. */
	int (*query_port)(void *ctx, const char *dev, unsigned port,
			  struct inv_port_attr *a);
	void *ctx;
};

struct inv_rdma_port {
	char dev[INV_DEV_NAME];
	unsigned port;
	int active;
	enum inv_link_layer layer;
	uint64_t rate_mbps;		/* 0 if unknown or down               */
};

/* Per-lane Mb/s of an active_speed code (SDR 2500 .. XDR 200000), lanes
 * of an active_width code (1X, 2X, 4X, 8X, 12X); 0 if unknown. */
uint64_t inv_speed_lane_mbps(uint8_t active_speed);
unsigned inv_width_lanes(uint8_t active_width);

/* sysfs "rate": "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)" -> Mb/s. */
int inv_parse_sysfs_rate(const char *s, uint64_t *mbps);

const char *inv_link_layer_name(enum inv_link_layer l);

/* Every port of every device through ops.  Returns the count, or -1 with
 * a message. */
int inv_rdma_list(const struct inv_rdma_ops *ops, struct inv_rdma_port *out,
		  int max, char *err, size_t errlen);

/* The sysfs implementation on root ("/sys" or a recorded tree). */
void inv_rdma_sysfs_ops(struct inv_rdma_ops *ops, const char *root);
/* libibverbs; ops->devices fails cleanly when built without it. */
void inv_rdma_verbs_ops(struct inv_rdma_ops *ops);

/* Ethernet interfaces under root/class/net with a speed (sysfs "speed",
 * Mb/s; -1 or missing when the link is down). */
struct inv_netdev {
	char name[INV_DEV_NAME];
	int up;				/* operstate "up"                     */
	uint64_t speed_mbps;		/* 0: unknown / down                  */
	int type;			/* ARPHRD: 1 Ethernet, 32 InfiniBand  */
};
int inv_netdev_list(const char *root, struct inv_netdev *out, int max,
		    char *err, size_t errlen);

#endif /* ORRERY_RDMA_H */
