/*
 * rdma_verbs.c - struct inv_rdma_ops on libibverbs: the devices and ports
 * as the verbs stack reports them (ibv_get_device_list, ibv_query_port).
 * Built only with libibverbs (configure --with-ibverbs, the default when
 * libibverbs-dev is installed); without it the ops report failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma.h"

#ifdef HAVE_IBVERBS
#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;

	if (!list)
		return NULL;
	for (int i = 0; i < n && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static int verbs_devices(void *unused, char (*names)[INV_DEV_NAME], int max)
{
	int n = 0;
	struct ibv_device **list;

	errno = 0;
	list = ibv_get_device_list(&n);
	/* ENOSYS: no RDMA in this kernel, a node with no RDMA devices. */
	if (!list)
		return errno == ENOSYS ? 0 : -1;
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
		snprintf(names[i], INV_DEV_NAME, "%s", ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	return n;
}

static int verbs_port_count(void *unused, const char *dev)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_device_attr a;
	int n = -1;

	if (!ctx)
		return -1;
	if (ibv_query_device(ctx, &a) == 0)
		n = a.phys_port_cnt;
	ibv_close_device(ctx);
	return n;
}

static int verbs_query_port(void *unused, const char *dev, unsigned port,
			    struct inv_port_attr *out)
{
	struct ibv_context *ctx = open_dev(dev);
	struct ibv_port_attr a;
	int rc = -1;

	if (!ctx)
		return -1;
	if (ibv_query_port(ctx, (uint8_t) port, &a) == 0) {
		out->active = a.state == IBV_PORT_ACTIVE;
		out->layer = a.link_layer == IBV_LINK_LAYER_ETHERNET ?
			INV_LL_ETHERNET : INV_LL_INFINIBAND;
		out->active_speed = a.active_speed;
		out->active_width = a.active_width;
		out->rate_mbps = 0;
		rc = 0;
	}
	ibv_close_device(ctx);
	return rc;
}
#else
static int verbs_devices(void *u, char (*n)[INV_DEV_NAME], int m) { return -1; }
static int verbs_port_count(void *u, const char *d) { return -1; }
static int verbs_query_port(void *u, const char *d, unsigned p,
			    struct inv_port_attr *a) { return -1; }
#endif

void inv_rdma_verbs_ops(struct inv_rdma_ops *ops)
{
	ops->name = "verbs";
	ops->devices = verbs_devices;
	ops->port_count = verbs_port_count;
	ops->query_port = verbs_query_port;
	ops->ctx = NULL;
}
