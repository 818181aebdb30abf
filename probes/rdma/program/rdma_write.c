/*
 * rdma_write: commlab's own minimal RDMA WRITE program over libibverbs.
 *
 * One process is the server (it owns the target buffer), the other the
 * client (it posts RDMA WRITEs into the server's buffer and times them).
 * They find each other over a plain TCP socket, the out-of-band (OOB)
 * channel every verbs program needs: an RC queue pair can only be connected
 * once each side knows the other's QP number, first packet sequence number,
 * LID (InfiniBand) or GID (RoCE), and, for the side that writes, the remote
 * buffer's address and rkey.
 *
 * Steps, each named in a comment below: open the device, allocate a
 * protection domain (PD), register a memory region (MR: host memory, or GPU
 * memory through dma-buf or nvidia-peermem), create a completion queue (CQ)
 * and a reliable-connected queue pair (QP), exchange connection info over
 * TCP, move the QP INIT -> RTR -> RTS, then write.
 *
 * Output (stdout), one line each, stable for commlab's Go parser
 * (probes/rdma):
 *   info KEY VALUE                       what was opened (device, port, ...)
 *   oob sent|recv qpn=.. psn=.. lid=.. gid=.. rkey=.. addr=.. len=..
 *   result SIZE_BYTES ITERS USEC GBPS    client only: ITERS writes of SIZE
 *                                        took USEC microseconds in all;
 *                                        GBPS is GB/s (1e9 bytes per second)
 *   done                                 the run finished
 * Errors go to stderr as one line "rdma_write: ...". Exit status: 0 ok,
 * 1 error, 2 usage, 3 unavailable (no RDMA device, no active port, no GPU
 * memory); commlab maps 3 to probes.ErrUnavailable.
 *
 * --oob-only runs the OOB exchange alone with made-up connection info and
 * no device, so the exchange is tested on machines without RDMA hardware.
 *
 * Build: cc -O2 -o rdma_write rdma_write.c -libverbs -ldl
 * No CUDA headers are needed: the few driver API calls for --gpu are looked
 * up in libcuda.so.1 at run time.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_USAGE = 2, EXIT_UNAVAILABLE = 3 };

static void die(int code, const char *fmt, ...) {
	va_list ap;
	fputs("rdma_write: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* ---- options ---- */

struct opts {
	int server;           /* 1: server; 0: client */
	const char *host;     /* client: the server's host */
	const char *port;     /* TCP port of the OOB exchange */
	const char *device;   /* device name; NULL: first with an ACTIVE port */
	int ib_port;          /* 0: first ACTIVE port */
	int gid_index;        /* -1: IB uses the LID, RoCE choose_gid_index's pick */
	size_t sizes[64];
	int nsizes;
	int iters, warmup;
	int gpu;              /* -1: host memory; else the CUDA device */
	int oob_only;
	int timeout_s;        /* OOB connect and wait limit */
};

static void usage(void) {
	fprintf(stderr,
		"usage: rdma_write --server [--port P] [flags]\n"
		"       rdma_write --connect HOST [--port P] [flags]\n"
		"flags: --device NAME --ib-port N --gid-index N --sizes S1,S2,...\n"
		"       --iters N --warmup N --gpu CUDA_DEVICE --oob-only --timeout SECONDS\n");
	exit(EXIT_USAGE);
}

static void parse_sizes(struct opts *o, const char *s) {
	char *copy = strdup(s), *save = NULL;
	o->nsizes = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long long v = strtoull(t, &end, 10);
		if (*end || v == 0 || o->nsizes == 64)
			die(EXIT_USAGE, "bad --sizes %s (want up to 64 byte counts, comma-separated)", s);
		o->sizes[o->nsizes++] = (size_t)v;
	}
	free(copy);
}

static void parse_opts(struct opts *o, int argc, char **argv) {
	memset(o, 0, sizeof *o);
	o->server = -1;
	o->port = "18515";
	o->gid_index = -1;
	o->iters = 1000;
	o->warmup = 10;
	o->gpu = -1;
	o->timeout_s = 30;
	parse_sizes(o, "65536");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG() do { if (!v) usage(); i++; } while (0)
		if (!strcmp(a, "--server")) o->server = 1;
		else if (!strcmp(a, "--connect")) { ARG(); o->server = 0; o->host = v; }
		else if (!strcmp(a, "--port")) { ARG(); o->port = v; }
		else if (!strcmp(a, "--device")) { ARG(); o->device = v; }
		else if (!strcmp(a, "--ib-port")) { ARG(); o->ib_port = atoi(v); }
		else if (!strcmp(a, "--gid-index")) { ARG(); o->gid_index = atoi(v); }
		else if (!strcmp(a, "--sizes")) { ARG(); parse_sizes(o, v); }
		else if (!strcmp(a, "--iters")) { ARG(); o->iters = atoi(v); }
		else if (!strcmp(a, "--warmup")) { ARG(); o->warmup = atoi(v); }
		else if (!strcmp(a, "--gpu")) { ARG(); o->gpu = atoi(v); }
		else if (!strcmp(a, "--timeout")) { ARG(); o->timeout_s = atoi(v); }
		else if (!strcmp(a, "--oob-only")) o->oob_only = 1;
		else usage();
#undef ARG
	}
	if (o->server < 0 || o->iters <= 0 || o->warmup < 0 || o->timeout_s <= 0)
		usage();
}

/* ---- out-of-band exchange over TCP ---- */

/* conn_info is what each side tells the other. */
struct conn_info {
	uint32_t qpn, psn, rkey;
	uint16_t lid;
	uint8_t gid[16];
	uint64_t addr, len;
};

/* The wire form is one fixed-size text line, so byte order and struct
 * padding never matter. */
enum { OOB_MSG = 160 };

static void format_info(char *buf, size_t n, const struct conn_info *c) {
	char gid[33];
	for (int i = 0; i < 16; i++)
		sprintf(gid + 2 * i, "%02x", c->gid[i]);
	snprintf(buf, n, "qpn=%" PRIu32 " psn=%" PRIu32 " lid=%u gid=%s rkey=%" PRIu32 " addr=0x%" PRIx64 " len=%" PRIu64,
		c->qpn, c->psn, c->lid, gid, c->rkey, c->addr, c->len);
}

static int parse_info(const char *s, struct conn_info *c) {
	char gid[33];
	unsigned lid;
	if (sscanf(s, "qpn=%" SCNu32 " psn=%" SCNu32 " lid=%u gid=%32s rkey=%" SCNu32 " addr=0x%" SCNx64 " len=%" SCNu64,
		&c->qpn, &c->psn, &lid, gid, &c->rkey, &c->addr, &c->len) != 7 || strlen(gid) != 32)
		return -1;
	c->lid = (uint16_t)lid;
	for (int i = 0; i < 16; i++) {
		unsigned b;
		if (sscanf(gid + 2 * i, "%2x", &b) != 1)
			return -1;
		c->gid[i] = (uint8_t)b;
	}
	return 0;
}

static void write_all(int fd, const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die(1, "oob: write: %s", strerror(errno));
		c += w;
		n -= (size_t)w;
	}
}

static void read_all(int fd, void *p, size_t n) {
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			die(1, "oob: the peer closed the connection");
		if (r < 0)
			die(1, "oob: read: %s", strerror(errno));
		c += r;
		n -= (size_t)r;
	}
}

/* oob_connect returns a connected socket: the server listens on the port
 * and accepts one client; the client retries until the server listens or
 * the timeout passes, so the two may start in any order. */
static int oob_connect(const struct opts *o) {
	struct addrinfo hints = {0}, *res, *ai;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (o->server)
		hints.ai_flags = AI_PASSIVE;
	int rc = getaddrinfo(o->server ? NULL : o->host, o->port, &hints, &res);
	if (rc)
		die(1, "oob: %s:%s: %s", o->server ? "*" : o->host, o->port, gai_strerror(rc));
	int fd = -1, one = 1;
	if (o->server) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (fd < 0)
				continue;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
			if (ai->ai_family == AF_INET6) {
				int zero = 0; /* accept IPv4 clients too */
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
			}
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1) == 0)
				break;
			close(fd);
			fd = -1;
		}
		freeaddrinfo(res);
		if (fd < 0)
			die(1, "oob: listen on port %s: %s", o->port, strerror(errno));
		printf("info listening %s\n", o->port);
		fflush(stdout);
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			die(1, "oob: accept: %s", strerror(errno));
		close(fd);
		fd = c;
	} else {
		for (int waited_ms = 0;; waited_ms += 100) {
			for (ai = res; ai; ai = ai->ai_next) {
				fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
				if (fd < 0)
					continue;
				if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
					break;
				close(fd);
				fd = -1;
			}
			if (fd >= 0)
				break;
			if (waited_ms >= o->timeout_s * 1000)
				die(1, "oob: connect to %s:%s: %s (is the server running?)", o->host, o->port, strerror(errno));
			usleep(100 * 1000);
		}
		freeaddrinfo(res);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = {.tv_sec = o->timeout_s};
	if (!o->server) /* the server waits as long as the client writes */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return fd;
}

/* oob_exchange sends ours and returns the peer's connection info; both
 * sides send first, then read (the messages fit in the socket buffers). */
static void oob_exchange(int fd, const struct conn_info *mine, struct conn_info *peer) {
	char buf[OOB_MSG] = {0};
	format_info(buf, sizeof buf, mine);
	write_all(fd, buf, sizeof buf);
	printf("oob sent %s\n", buf);
	memset(buf, 0, sizeof buf);
	read_all(fd, buf, sizeof buf);
	buf[OOB_MSG - 1] = 0;
	if (parse_info(buf, peer))
		die(1, "oob: bad message from the peer: %.60s", buf);
	printf("oob recv %s\n", buf);
	fflush(stdout);
}

/* oob_sync sends one byte and waits for the peer's: a barrier. */
static void oob_sync(int fd, char mine, char want) {
	char c;
	write_all(fd, &mine, 1);
	read_all(fd, &c, 1);
	if (c != want)
		die(1, "oob: expected '%c' from the peer, got '%c'", want, c);
}

/* ---- GPU memory through the CUDA driver API, loaded at run time ---- */

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
enum { CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1 };

struct gpu_mem {
	void *lib;
	CUresult (*memFree)(CUdeviceptr);
	CUdeviceptr ptr;
	size_t len;
	int dmabuf_fd; /* -1: none; register with ibv_reg_mr under nvidia-peermem */
};

static void *cuda_sym(void *lib, const char *name) {
	void *f = dlsym(lib, name);
	if (!f)
		die(EXIT_UNAVAILABLE, "unavailable: libcuda.so.1 has no %s", name);
	return f;
}

/* gpu_alloc allocates len bytes on CUDA device dev and asks the driver for
 * a dma-buf fd of the range (CUDA 11.7+ and an open kernel module); the
 * fd is -1 when it cannot give one. */
static void gpu_alloc(struct gpu_mem *g, int dev, size_t len) {
	g->lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!g->lib)
		die(EXIT_UNAVAILABLE, "unavailable: --gpu: cannot load libcuda.so.1 (%s)", dlerror());
	CUresult (*init)(unsigned) = cuda_sym(g->lib, "cuInit");
	CUresult (*deviceGet)(CUdevice *, int) = cuda_sym(g->lib, "cuDeviceGet");
	CUresult (*ctxRetain)(CUcontext *, CUdevice) = cuda_sym(g->lib, "cuDevicePrimaryCtxRetain");
	CUresult (*ctxSet)(CUcontext) = cuda_sym(g->lib, "cuCtxSetCurrent");
	CUresult (*memAlloc)(CUdeviceptr *, size_t) = cuda_sym(g->lib, "cuMemAlloc_v2");
	CUresult (*getHandle)(void *, CUdeviceptr, size_t, int, unsigned long long) =
		dlsym(g->lib, "cuMemGetHandleForAddressRange");
	g->memFree = cuda_sym(g->lib, "cuMemFree_v2");
	CUdevice d;
	CUcontext ctx;
	CUresult rc;
	if ((rc = init(0)) != 0)
		die(EXIT_UNAVAILABLE, "unavailable: --gpu: cuInit failed (CUDA error %d)", rc);
	if ((rc = deviceGet(&d, dev)) != 0 || (rc = ctxRetain(&ctx, d)) != 0 || (rc = ctxSet(ctx)) != 0)
		die(EXIT_UNAVAILABLE, "unavailable: --gpu %d: no such CUDA device (CUDA error %d)", dev, rc);
	/* dma-buf export wants whole GPU pages: round up to 2 MiB. */
	g->len = (len + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	if ((rc = memAlloc(&g->ptr, g->len)) != 0)
		die(1, "--gpu: cuMemAlloc of %zu bytes failed (CUDA error %d)", g->len, rc);
	g->dmabuf_fd = -1;
	int fd = -1;
	if (getHandle && getHandle(&fd, g->ptr, g->len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0) == 0)
		g->dmabuf_fd = fd;
}

/* ---- which GID on RoCE: read from sysfs ---- */

/* read_line reads the first line of a sysfs file into buf; -1 when it
 * cannot (in a container, unmapped GID entries fail with EINVAL). */
static int read_line(const char *path, char *buf, size_t n) {
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *got = fgets(buf, (int)n, f);
	fclose(f);
	if (!got)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* gid_rank scores entry index of a port's GID table (port_dir is
 * /sys/class/infiniband/DEV/ports/PORT): 2 for an IPv4-mapped address
 * (::ffff:a.b.c.d), plus 1 when gid_attrs/types says "RoCE v2"; -1 for an
 * empty or unreadable entry. */
static int gid_rank(const char *port_dir, int index) {
	static const uint8_t zero[16], v4mapped[12] = {[10] = 0xff, [11] = 0xff};
	char path[512], line[64];
	uint8_t gid[16];
	snprintf(path, sizeof path, "%s/gids/%d", port_dir, index);
	if (read_line(path, line, sizeof line) || inet_pton(AF_INET6, line, gid) != 1 || !memcmp(gid, zero, 16))
		return -1;
	int rank = memcmp(gid, v4mapped, 12) ? 0 : 2;
	snprintf(path, sizeof path, "%s/gid_attrs/types/%d", port_dir, index);
	if (read_line(path, line, sizeof line) == 0 && !strcmp(line, "RoCE v2"))
		rank++;
	return rank;
}

/* choose_gid_index picks a RoCE port's GID when --gid-index is not given,
 * as NCCL (NCCL_IB_GID_INDEX=-1: IPv4 addresses, RoCE v2) and perftest
 * (no -x) do: the entry with the highest gid_rank, the lowest index on a
 * tie, so RoCE v2 with an IPv4 address wins. Index 0 is usually RoCE v1
 * on a link-local address, which no router forwards. */
static int choose_gid_index(const char *sysfs, const char *device, int port, int table_len) {
	char port_dir[256];
	snprintf(port_dir, sizeof port_dir, "%s/class/infiniband/%s/ports/%d", sysfs, device, port);
	int best = 0, best_rank = -1;
	for (int i = 0; i < table_len; i++) {
		int rank = gid_rank(port_dir, i);
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
		}
	}
	return best;
}

/* ---- verbs ---- */

struct rdma {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_port_attr port;
	int ib_port, gid_index;
	void *buf;
	size_t len;
	struct gpu_mem gpu;
};

enum { TX_DEPTH = 128 };

/* open_device picks the device by name, or the first with an ACTIVE port,
 * the port (given, or the device's first ACTIVE one) and, on RoCE, the GID
 * (given, or choose_gid_index's). */
static void open_device(struct rdma *r, const struct opts *o) {
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0)
		die(EXIT_UNAVAILABLE, "unavailable: no RDMA device (ibv_get_device_list is empty)");
	for (int i = 0; i < n && !r->ctx; i++) {
		const char *name = ibv_get_device_name(list[i]);
		if (o->device && strcmp(name, o->device))
			continue;
		struct ibv_context *ctx = ibv_open_device(list[i]);
		if (!ctx) {
			if (o->device)
				die(1, "open device %s: %s", name, strerror(errno));
			continue;
		}
		struct ibv_device_attr da;
		if (ibv_query_device(ctx, &da)) {
			ibv_close_device(ctx);
			continue;
		}
		for (int p = 1; p <= da.phys_port_cnt; p++) {
			if (o->ib_port && p != o->ib_port)
				continue;
			struct ibv_port_attr pa;
			if (ibv_query_port(ctx, (uint8_t)p, &pa) == 0 && pa.state == IBV_PORT_ACTIVE) {
				r->ctx = ctx;
				r->ib_port = p;
				r->port = pa;
				break;
			}
		}
		if (!r->ctx)
			ibv_close_device(ctx);
	}
	if (!r->ctx) {
		if (o->device)
			die(EXIT_UNAVAILABLE, "unavailable: device %s has no ACTIVE port%s", o->device, o->ib_port ? " of the one asked for" : "");
		die(EXIT_UNAVAILABLE, "unavailable: %d RDMA device(s) but no ACTIVE port", n);
	}
	int roce = r->port.link_layer == IBV_LINK_LAYER_ETHERNET;
	r->gid_index = o->gid_index;
	if (roce && r->gid_index < 0) /* RoCE has no LIDs: a GID is needed */
		r->gid_index = choose_gid_index("/sys", ibv_get_device_name(r->ctx->device), r->ib_port, r->port.gid_tbl_len);
	printf("info device %s\ninfo port %d\ninfo link_layer %s\ninfo active_mtu %d\ninfo gid_index %d\n",
		ibv_get_device_name(r->ctx->device), r->ib_port, roce ? "Ethernet" : "InfiniBand",
		128 << r->port.active_mtu, r->gid_index);
	ibv_free_device_list(list);
}

static double now_us(void);

/* setup allocates the PD, registers the buffer (MR), makes the CQ and the
 * RC QP, and moves the QP to INIT. It prints how long the registration
 * took: pinning and translating every page of the buffer. */
static void setup(struct rdma *r, const struct opts *o) {
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (!(r->pd = ibv_alloc_pd(r->ctx)))
		die(1, "ibv_alloc_pd: %s", strerror(errno));
	double reg_start;
	if (o->gpu >= 0) {
		gpu_alloc(&r->gpu, o->gpu, r->len);
		r->buf = (void *)(uintptr_t)r->gpu.ptr;
		reg_start = now_us();
		if (r->gpu.dmabuf_fd >= 0) {
			/* dma-buf: the upstream path, no extra kernel module */
			r->mr = ibv_reg_dmabuf_mr(r->pd, 0, r->gpu.len, (uint64_t)r->gpu.ptr, r->gpu.dmabuf_fd, access);
			printf("info memory gpu%d dmabuf\n", o->gpu);
		} else {
			/* nvidia-peermem lets ibv_reg_mr pin GPU memory directly */
			r->mr = ibv_reg_mr(r->pd, r->buf, r->gpu.len, access);
			printf("info memory gpu%d peermem\n", o->gpu);
		}
		if (!r->mr)
			die(1, "register GPU memory: %s (dma-buf needs CUDA 11.7+ with the open kernel module; else load nvidia_peermem)", strerror(errno));
	} else {
		if (posix_memalign(&r->buf, 4096, r->len))
			die(1, "allocate %zu bytes", r->len);
		memset(r->buf, o->server ? 0 : 0x5a, r->len);
		reg_start = now_us();
		if (!(r->mr = ibv_reg_mr(r->pd, r->buf, r->len, access)))
			die(1, "ibv_reg_mr: %s", strerror(errno));
		printf("info memory host\n");
	}
	printf("info reg_mr_usec %.1f\ninfo reg_mr_bytes %zu\n", now_us() - reg_start, r->len);
	if (!(r->cq = ibv_create_cq(r->ctx, TX_DEPTH * 2, NULL, NULL, 0)))
		die(1, "ibv_create_cq: %s", strerror(errno));
	struct ibv_qp_init_attr qa = {
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = TX_DEPTH, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1},
	};
	if (!(r->qp = ibv_create_qp(r->pd, &qa)))
		die(1, "ibv_create_qp: %s", strerror(errno));
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)r->ib_port,
		.qp_access_flags = access};
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die(1, "QP to INIT: %s", strerror(errno));
}

/* connect_qp moves the QP to RTR (ready to receive: it now knows the
 * peer's QPN, PSN and address) and RTS (ready to send). */
static void connect_qp(struct rdma *r, const struct conn_info *mine, const struct conn_info *peer) {
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = r->port.active_mtu, .dest_qp_num = peer->qpn,
		.rq_psn = peer->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = {.dlid = peer->lid, .sl = 0, .src_path_bits = 0, .port_num = (uint8_t)r->ib_port},
	};
	if (r->gid_index >= 0) {
		/* RoCE (or IB across subnets): route by GID in a global route header */
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
		a.ah_attr.grh.hop_limit = 255; /* the IP TTL: 1 would stop at the first router */
	}
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die(1, "QP to RTR: %s", strerror(errno));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = mine->psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die(1, "QP to RTS: %s", strerror(errno));
}

static double now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* write_burst posts n RDMA WRITEs of size bytes, at most TX_DEPTH in
 * flight, every one signaled, and waits for all their completions. */
static void write_burst(struct rdma *r, const struct conn_info *peer, size_t size, int n) {
	int posted = 0, done = 0;
	struct ibv_wc wc[16];
	while (done < n) {
		while (posted < n && posted - done < TX_DEPTH) {
			struct ibv_sge sge = {.addr = (uintptr_t)r->buf, .length = (uint32_t)size, .lkey = r->mr->lkey};
			struct ibv_send_wr wr = {.wr_id = (uint64_t)posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = {.remote_addr = peer->addr, .rkey = peer->rkey}};
			struct ibv_send_wr *bad;
			if (ibv_post_send(r->qp, &wr, &bad))
				die(1, "ibv_post_send: %s", strerror(errno));
			posted++;
		}
		int got = ibv_poll_cq(r->cq, 16, wc);
		if (got < 0)
			die(1, "ibv_poll_cq failed");
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die(1, "RDMA WRITE of %zu bytes: %s", size, ibv_wc_status_str(wc[i].status));
		done += got;
	}
}

int main(int argc, char **argv) {
	struct opts o;
	parse_opts(&o, argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	size_t maxsize = 0;
	for (int i = 0; i < o.nsizes; i++)
		if (o.sizes[i] > maxsize)
			maxsize = o.sizes[i];

	struct rdma r = {.len = maxsize};
	struct conn_info mine = {0}, peer;
	srand48(getpid() ^ (long)time(NULL));
	if (o.oob_only) {
		/* Made-up connection info: what a device would have given. */
		mine.qpn = (uint32_t)(lrand48() & 0xffffff);
		mine.lid = (uint16_t)(o.server ? 1 : 2);
		for (int i = 0; i < 16; i++)
			mine.gid[i] = (uint8_t)lrand48();
		mine.rkey = (uint32_t)lrand48();
		mine.addr = 0x7f0000000000ull + ((uint64_t)lrand48() << 12);
	} else {
		open_device(&r, &o);
		setup(&r, &o);
		mine.qpn = r.qp->qp_num;
		mine.lid = r.port.lid;
		if (r.gid_index >= 0) {
			union ibv_gid gid;
			if (ibv_query_gid(r.ctx, (uint8_t)r.ib_port, r.gid_index, &gid))
				die(1, "ibv_query_gid index %d: %s", r.gid_index, strerror(errno));
			memcpy(mine.gid, gid.raw, 16);
		}
		mine.rkey = r.mr->rkey;
		mine.addr = (uintptr_t)r.buf;
	}
	mine.psn = (uint32_t)(lrand48() & 0xffffff);
	mine.len = maxsize;

	int fd = oob_connect(&o);
	oob_exchange(fd, &mine, &peer);
	if (!o.server && peer.len < maxsize)
		die(1, "the server's buffer holds %" PRIu64 " bytes, fewer than the largest write (%zu)", peer.len, maxsize);
	if (o.oob_only) {
		oob_sync(fd, 'D', 'D');
		printf("done\n");
		return 0;
	}
	connect_qp(&r, &mine, &peer);
	oob_sync(fd, 'R', 'R'); /* both QPs are RTS before the first write */

	if (o.server) {
		/* The server's part is passive: its NIC takes the writes. It waits
		 * for the client's final message, then checks the bytes landed. */
		char c;
		read_all(fd, &c, 1);
		if (c != 'D')
			die(1, "oob: expected the final message, got '%c'", c);
		if (o.gpu < 0) {
			size_t bad = 0;
			for (size_t i = 0; i < maxsize; i++)
				bad += ((unsigned char *)r.buf)[i] != 0x5a;
			printf("info received_ok %s\n", bad ? "no" : "yes");
			if (bad)
				die(1, "%zu of %zu bytes in the target buffer are not what the client wrote", bad, maxsize);
		}
		write_all(fd, "D", 1);
	} else {
		printf("# result size_bytes iters usec gbps (usec: all iters writes; gbps: GB/s, 1e9 bytes/s)\n");
		for (int i = 0; i < o.nsizes; i++) {
			size_t size = o.sizes[i];
			write_burst(&r, &peer, size, o.warmup);
			double t0 = now_us();
			write_burst(&r, &peer, size, o.iters);
			double us = now_us() - t0;
			printf("result %zu %d %.3f %.3f\n", size, o.iters, us, (double)size * o.iters / (us * 1e3));
		}
		oob_sync(fd, 'D', 'D');
	}
	printf("done\n");
	ibv_destroy_qp(r.qp);
	ibv_destroy_cq(r.cq);
	ibv_dereg_mr(r.mr);
	if (o.gpu >= 0) {
		if (r.gpu.dmabuf_fd >= 0)
			close(r.gpu.dmabuf_fd);
		r.gpu.memFree(r.gpu.ptr);
	} else {
		free(r.buf);
	}
	ibv_dealloc_pd(r.pd);
	ibv_close_device(r.ctx);
	close(fd);
	return 0;
}
