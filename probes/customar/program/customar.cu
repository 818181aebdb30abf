/*
 * customar: commlab's own custom all-reduce over CUDA IPC.
 *
 * N processes (ranks), one per GPU, or several sharing one GPU. Each rank
 * allocates three buffers with cudaMalloc: its input (the buffer peers read),
 * a scratch buffer for two-shot, and a signal block of flags. It exports
 * their handles with cudaIpcGetMemHandle into a file in a shared directory,
 * reads every peer's file and maps the peer buffers with
 * cudaIpcOpenMemHandle. From then on a kernel on any rank loads and stores
 * peer memory directly, over NVLink or PCIe peer-to-peer, or, when the ranks
 * share one GPU, in that GPU's own memory.
 *
 * Two kernels, the two that vLLM's csrc/custom_all_reduce.cuh names:
 *   oneshot  start barrier; every rank reads all N inputs and writes the
 *            whole sum; end barrier. Each GPU moves (N-1)*S in.
 *   twoshot  start barrier; reduce-scatter: rank r sums its 1/N part of all
 *            N inputs into its own scratch; middle barrier; all-gather: rank
 *            r copies every rank's summed part from that rank's scratch;
 *            end barrier. Each GPU moves 2*(N-1)*S/N in.
 * Barriers are per block: thread t < N of block b writes the call's flag
 * into peer t's signal slot [phase][b][my rank] and spins until its own slot
 * [phase][b][t] reaches the flag. Flags grow by one per call, so nothing is
 * ever reset. Block b on every rank handles the same indices, so a block's
 * barrier with the same block of its peers is enough for the data it reads.
 * Every wait has a deadline (globaltimer, --timeout-ms): a rank whose peer
 * never arrives records where it waited and the program exits with status 4
 * instead of hanging.
 *
 * The sums are in float32 and exact: rank r's element i is
 * (r+1) + ((i+seed) % 13), changed every size, and every rank checks its
 * whole output after one call (stale reads of a previous size would fail).
 *
 * When the ranks share one GPU (no MPS), their contexts time-slice: a
 * kernel spinning on a flag runs until the driver switches to the peer's
 * context, so each barrier costs about one time slice. Such a run proves
 * the handle exchange, the kernels and the sums; it says nothing about
 * memory ordering across GPUs or about speed. Its times measure time
 * slicing.
 *
 * Usage: customar --rank R --nranks N --dir DIR [--device D]
 *        [--min BYTES] [--max BYTES] [--iters I] [--warmup W]
 *        [--algos oneshot,twoshot] [--blocks B] [--threads T]
 *        [--timeout-ms MS]
 * With --nranks 1 the kernels run against the rank's own buffers (no IPC):
 * launch, one read and one write, and the barrier with itself.
 *
 * Output (stdout), one line each, stable for commlab's Go parser
 * (probes/customar):
 *   info KEY VALUE...                     rank, device, name, peers
 *   check ALGO SIZE ok|bad INDEX GOT WANT  this rank's output after one call
 *   result ALGO SIZE ITERS USEC           USEC per call, mean of ITERS
 *                                          calls timed with CUDA events
 *   done
 * Errors go to stderr as one line "customar: ...". Exit status: 0 ok,
 * 1 error, 2 usage, 3 unavailable (no GPU, no peer access), 4 a flag wait
 * timed out, 5 a wrong sum.
 *
 * Build: nvcc -O3 -std=c++17 -arch=native -o customar customar.cu
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 8
#define MAX_BLOCKS 64

enum { EXIT_USAGE = 2, EXIT_UNAVAILABLE = 3, EXIT_TIMEOUT = 4, EXIT_WRONG = 5 };

static int g_rank = -1;

static void die(int code, const char *fmt, ...) {
	va_list ap;
	fprintf(stderr, "customar: ");
	if (g_rank >= 0) fprintf(stderr, "rank %d: ", g_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

#define CK(call)                                                                   \
	do {                                                                           \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) die(1, "%s: %s", #call, cudaGetErrorString(e_)); \
	} while (0)

/* Signal is one rank's flag block; peers write into it. */
struct Signal {
	unsigned int flag[3][MAX_BLOCKS][MAX_RANKS]; /* phase (start, mid, end) x block x from-rank */
};

/* Peers holds every rank's mapped buffers, passed by value to the kernels. */
struct Peers {
	const void *in[MAX_RANKS];
	void *tmp[MAX_RANKS];
	Signal *sig[MAX_RANKS];
};

/* Error words a timed-out wait leaves: set, phase, block, peer. */
struct WaitError {
	int set, phase, block, peer;
};

__device__ __forceinline__ unsigned long long global_ns() {
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ float4 add(float4 a, float4 b) {
	return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

/*
 * barrier: every block's writes so far are made visible system-wide, then
 * thread t < ws raises this rank's flag in peer t's signal block and waits
 * for peer t's flag in its own. Returns false (in every thread of the block)
 * when a wait passed its deadline.
 */
__device__ bool barrier(const Peers &p, int rank, int ws, int phase, unsigned int flag,
                        unsigned long long timeout_ns, WaitError *err) {
	__shared__ int failed;
	/* A wait that timed out before (this call or an earlier one still
	 * queued) fails every later barrier at once, so a dead peer costs one
	 * timeout, not one per queued call. */
	__syncthreads(); /* every thread has read the previous barrier's verdict */
	if (threadIdx.x == 0) failed = ((volatile WaitError *)err)->set;
	__syncthreads();
	if (failed) return false;
	if ((int)threadIdx.x < ws) {
		__threadfence_system();
		volatile unsigned int *to = &p.sig[threadIdx.x]->flag[phase][blockIdx.x][rank];
		*to = flag;
		volatile unsigned int *mine = &p.sig[rank]->flag[phase][blockIdx.x][threadIdx.x];
		unsigned long long start = global_ns();
		while (*mine < flag) {
			if (global_ns() - start > timeout_ns) {
				failed = 1;
				if (atomicCAS(&err->set, 0, 1) == 0) {
					err->phase = phase;
					err->block = blockIdx.x;
					err->peer = threadIdx.x;
				}
				break;
			}
		}
		__threadfence_system();
	}
	__syncthreads();
	return failed == 0;
}

template <typename T>
__global__ void oneshot(Peers p, T *out, size_t n, int rank, int ws, unsigned int flag,
                        unsigned long long timeout_ns, WaitError *err) {
	if (!barrier(p, rank, ws, 0, flag, timeout_ns, err)) return;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		/* Every rank adds in rank order, so all outputs are bitwise equal. */
		T acc = __ldcg((const T *)p.in[0] + i);
		for (int r = 1; r < ws; r++) acc = add(acc, __ldcg((const T *)p.in[r] + i));
		out[i] = acc;
	}
	/* Nobody may overwrite its input while a peer still reads it. */
	barrier(p, rank, ws, 2, flag, timeout_ns, err);
}

template <typename T>
__global__ void twoshot(Peers p, T *out, size_t n, size_t part, int rank, int ws, unsigned int flag,
                        unsigned long long timeout_ns, WaitError *err) {
	if (!barrier(p, rank, ws, 0, flag, timeout_ns, err)) return;
	size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	/* Reduce-scatter: my part of every input, summed into my scratch. */
	size_t lo = (size_t)rank * part;
	size_t hi = lo + part < n ? lo + part : n;
	T *mine = (T *)p.tmp[rank];
	for (size_t i = lo + tid; i < hi; i += stride) {
		T acc = __ldcg((const T *)p.in[0] + i);
		for (int r = 1; r < ws; r++) acc = add(acc, __ldcg((const T *)p.in[r] + i));
		mine[i - lo] = acc;
	}
	if (!barrier(p, rank, ws, 1, flag, timeout_ns, err)) return;
	/* All-gather: every rank's summed part from that rank's scratch. */
	for (int q = 0; q < ws; q++) {
		int src = (rank + q) % ws;
		size_t qlo = (size_t)src * part;
		size_t qhi = qlo + part < n ? qlo + part : n;
		const T *t = (const T *)p.tmp[src];
		for (size_t i = qlo + tid; i < qhi; i += stride) out[i] = __ldcg(t + (i - qlo));
	}
	/* Nobody may overwrite its scratch while a peer still reads it. */
	barrier(p, rank, ws, 2, flag, timeout_ns, err);
}

/* Options. */
struct Opts {
	int rank = -1, nranks = 0, device = -1;
	const char *dir = NULL;
	size_t min = 8, max = 8 << 20;
	int iters = 20, warmup = 5;
	int blocks = 36, threads = 512;
	long timeout_ms = 10000;
	bool algo[2] = {true, true};
};

static const char *algo_name[2] = {"oneshot", "twoshot"};

static size_t parse_size(const char *s) {
	char *end;
	double v = strtod(s, &end);
	size_t m = 1;
	switch (*end) {
	case 'K': case 'k': m = 1 << 10; end++; break;
	case 'M': case 'm': m = 1 << 20; end++; break;
	case 'G': case 'g': m = 1ul << 30; end++; break;
	}
	if (*end == 'B' || *end == 'b') end++;
	if (*end != 0 || v <= 0) die(EXIT_USAGE, "bad size %s", s);
	return (size_t)(v * m);
}

static void usage(void) {
	fprintf(stderr,
	        "usage: customar --rank R --nranks N --dir DIR [--device D] [--min BYTES] [--max BYTES]\n"
	        "       [--iters I] [--warmup W] [--algos oneshot,twoshot] [--blocks B] [--threads T] [--timeout-ms MS]\n");
	exit(EXIT_USAGE);
}

static Opts parse(int argc, char **argv) {
	Opts o;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc) usage();
		const char *v = argv[++i];
		if (!strcmp(a, "--rank")) o.rank = atoi(v);
		else if (!strcmp(a, "--nranks")) o.nranks = atoi(v);
		else if (!strcmp(a, "--device")) o.device = atoi(v);
		else if (!strcmp(a, "--dir")) o.dir = v;
		else if (!strcmp(a, "--min")) o.min = parse_size(v);
		else if (!strcmp(a, "--max")) o.max = parse_size(v);
		else if (!strcmp(a, "--iters")) o.iters = atoi(v);
		else if (!strcmp(a, "--warmup")) o.warmup = atoi(v);
		else if (!strcmp(a, "--blocks")) o.blocks = atoi(v);
		else if (!strcmp(a, "--threads")) o.threads = atoi(v);
		else if (!strcmp(a, "--timeout-ms")) o.timeout_ms = atol(v);
		else if (!strcmp(a, "--algos")) {
			o.algo[0] = strstr(v, "oneshot") != NULL;
			o.algo[1] = strstr(v, "twoshot") != NULL;
			if (!o.algo[0] && !o.algo[1]) die(EXIT_USAGE, "--algos: want oneshot, twoshot or both, got %s", v);
		} else usage();
	}
	if (o.nranks < 1 || o.nranks > MAX_RANKS) die(EXIT_USAGE, "--nranks must be 1 to %d", MAX_RANKS);
	if (o.rank < 0 || o.rank >= o.nranks) die(EXIT_USAGE, "--rank must be 0 to nranks-1");
	if (o.nranks > 1 && o.dir == NULL) die(EXIT_USAGE, "--dir is needed with more than one rank");
	if (o.min < 4 || o.min % 4 || o.max % 4 || o.max < o.min) die(EXIT_USAGE, "sizes must be multiples of 4 bytes, min <= max");
	if (o.blocks < 1 || o.blocks > MAX_BLOCKS) die(EXIT_USAGE, "--blocks must be 1 to %d", MAX_BLOCKS);
	if (o.threads < 32 || o.threads > 1024 || o.threads % 32) die(EXIT_USAGE, "--threads must be a multiple of 32 up to 1024");
	if (o.iters < 1 || o.warmup < 0 || o.timeout_ms < 1) die(EXIT_USAGE, "bad --iters, --warmup or --timeout-ms");
	return o;
}

/* What a rank publishes for its peers. */
struct Published {
	int device;
	char bus[32];
	cudaIpcMemHandle_t in, tmp, sig;
};

static void write_file(const char *dir, const char *name, const void *buf, size_t len) {
	char path[4096], tmp[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	FILE *f = fopen(tmp, "wb");
	if (!f) die(1, "create %s: %s", tmp, strerror(errno));
	if (len && fwrite(buf, 1, len, f) != len) die(1, "write %s: %s", tmp, strerror(errno));
	if (fclose(f)) die(1, "close %s: %s", tmp, strerror(errno));
	if (rename(tmp, path)) die(1, "rename %s: %s", tmp, strerror(errno));
}

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* wait_file waits until dir/name exists (a peer renamed it into place). */
static void wait_file(const char *dir, const char *name, double timeout_s) {
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	double start = now_s();
	struct stat st;
	while (stat(path, &st) != 0) {
		if (now_s() - start > timeout_s) die(EXIT_TIMEOUT, "waited %.0f s for %s: a peer did not arrive", timeout_s, path);
		usleep(200);
	}
}

/* host_barrier: every rank writes bar-NAME-R and waits for all N. */
static void host_barrier(const Opts &o, const char *name) {
	if (o.nranks == 1) return;
	char f[256];
	snprintf(f, sizeof f, "bar-%s-%d", name, o.rank);
	write_file(o.dir, f, "", 0);
	for (int r = 0; r < o.nranks; r++) {
		snprintf(f, sizeof f, "bar-%s-%d", name, r);
		wait_file(o.dir, f, 120);
	}
}

static float value(int r, size_t i, unsigned seed) { return (float)(r + 1) + (float)((i + seed) % 13); }

int main(int argc, char **argv) {
	Opts o = parse(argc, argv);
	g_rank = o.rank;
	setvbuf(stdout, NULL, _IOLBF, 0);

	int ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0)
		die(EXIT_UNAVAILABLE, "unavailable: no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
	int dev = o.device >= 0 ? o.device : o.rank % ndev;
	if (dev >= ndev) die(EXIT_USAGE, "--device %d: only %d devices", dev, ndev);
	CK(cudaSetDevice(dev));
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, dev));
	char bus[32];
	CK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
	int rtv = 0, drv = 0;
	cudaRuntimeGetVersion(&rtv);
	cudaDriverGetVersion(&drv);
	printf("info rank %d nranks %d pid %d\n", o.rank, o.nranks, (int)getpid());
	printf("info device %d %s %s\n", dev, bus, prop.name);
	printf("info cuda runtime %d driver %d\n", rtv, drv);
	printf("info launch blocks %d threads %d timeout_ms %ld iters %d warmup %d\n", o.blocks, o.threads,
	       o.timeout_ms, o.iters, o.warmup);

	size_t cap = (o.max + 15) / 16 * 16;
	void *in, *tmp, *out;
	Signal *sig;
	WaitError *err;
	CK(cudaMalloc(&in, cap));
	CK(cudaMalloc(&tmp, cap));
	CK(cudaMalloc(&out, cap));
	CK(cudaMalloc(&sig, sizeof(Signal)));
	CK(cudaMalloc(&err, sizeof(WaitError)));
	CK(cudaMemset(sig, 0, sizeof(Signal)));
	CK(cudaMemset(err, 0, sizeof(WaitError)));
	CK(cudaDeviceSynchronize());

	Peers p;
	memset(&p, 0, sizeof p);
	p.in[o.rank] = in;
	p.tmp[o.rank] = tmp;
	p.sig[o.rank] = sig;
	if (o.nranks > 1) {
		Published me;
		memset(&me, 0, sizeof me);
		me.device = dev;
		strncpy(me.bus, bus, sizeof me.bus - 1);
		CK(cudaIpcGetMemHandle(&me.in, in));
		CK(cudaIpcGetMemHandle(&me.tmp, tmp));
		CK(cudaIpcGetMemHandle(&me.sig, sig));
		char name[64];
		snprintf(name, sizeof name, "handles-%d", o.rank);
		write_file(o.dir, name, &me, sizeof me);
		for (int r = 0; r < o.nranks; r++) {
			if (r == o.rank) continue;
			snprintf(name, sizeof name, "handles-%d", r);
			wait_file(o.dir, name, 120);
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", o.dir, name);
			FILE *f = fopen(path, "rb");
			Published peer;
			if (!f || fread(&peer, 1, sizeof peer, f) != sizeof peer) die(1, "read %s", path);
			fclose(f);
			const char *how = "same-gpu";
			if (strcmp(peer.bus, bus) != 0) {
				int can = 0;
				CK(cudaDeviceCanAccessPeer(&can, dev, peer.device));
				if (!can) die(EXIT_UNAVAILABLE, "unavailable: no peer access from GPU %s to GPU %s", bus, peer.bus);
				how = "p2p";
			}
			void *pin, *ptmp, *psig;
			CK(cudaIpcOpenMemHandle(&pin, peer.in, cudaIpcMemLazyEnablePeerAccess));
			CK(cudaIpcOpenMemHandle(&ptmp, peer.tmp, cudaIpcMemLazyEnablePeerAccess));
			CK(cudaIpcOpenMemHandle(&psig, peer.sig, cudaIpcMemLazyEnablePeerAccess));
			p.in[r] = pin;
			p.tmp[r] = ptmp;
			p.sig[r] = (Signal *)psig;
			printf("info peer %d device %d %s %s\n", r, peer.device, peer.bus, how);
		}
	}
	host_barrier(o, "mapped");

	unsigned long long timeout_ns = (unsigned long long)o.timeout_ms * 1000000ull;
	unsigned int flag = 0;
	float *host = (float *)malloc(cap);
	if (!host) die(1, "out of host memory");
	cudaEvent_t t0, t1;
	CK(cudaEventCreate(&t0));
	CK(cudaEventCreate(&t1));
	unsigned seed = 0;
	int wrong = 0;

	for (int a = 0; a < 2; a++) {
		if (!o.algo[a]) continue;
		for (size_t size = o.min; size <= o.max; size *= 2) {
			seed++;
			size_t count = size / 4;
			/* float4 when every rank's two-shot part stays whole. */
			bool vec = count % (4 * (size_t)o.nranks) == 0;
			size_t n = vec ? count / 4 : count;
			size_t part = (n + o.nranks - 1) / o.nranks;
			int blocks = (int)((n + o.threads - 1) / o.threads);
			if (blocks > o.blocks) blocks = o.blocks;
			if (blocks < 1) blocks = 1;

			for (size_t i = 0; i < count; i++) host[i] = value(o.rank, i, seed);
			CK(cudaMemcpy(in, host, size, cudaMemcpyHostToDevice));
			CK(cudaMemset(out, 0xff, size));
			CK(cudaDeviceSynchronize());
			char bname[64];
			snprintf(bname, sizeof bname, "%s-%zu", algo_name[a], size);
			host_barrier(o, bname);

			auto launch = [&]() {
				flag++;
				if (a == 0) {
					if (vec) oneshot<float4><<<blocks, o.threads>>>(p, (float4 *)out, n, o.rank, o.nranks, flag, timeout_ns, err);
					else oneshot<float><<<blocks, o.threads>>>(p, (float *)out, n, o.rank, o.nranks, flag, timeout_ns, err);
				} else {
					if (vec) twoshot<float4><<<blocks, o.threads>>>(p, (float4 *)out, n, part, o.rank, o.nranks, flag, timeout_ns, err);
					else twoshot<float><<<blocks, o.threads>>>(p, (float *)out, n, part, o.rank, o.nranks, flag, timeout_ns, err);
				}
			};
			auto check_wait = [&]() {
				CK(cudaDeviceSynchronize());
				CK(cudaGetLastError());
				WaitError we;
				CK(cudaMemcpy(&we, err, sizeof we, cudaMemcpyDeviceToHost));
				if (we.set) {
					const char *ph[3] = {"start", "middle", "end"};
					die(EXIT_TIMEOUT, "%s %zu B: flag wait timed out after %ld ms (%s barrier, block %d, waiting for rank %d)",
					    algo_name[a], size, o.timeout_ms, ph[we.phase], we.block, we.peer);
				}
			};

			/* One call, then every element checked. */
			launch();
			check_wait();
			CK(cudaMemcpy(host, out, size, cudaMemcpyDeviceToHost));
			size_t bad = count;
			for (size_t i = 0; i < count; i++) {
				float want = 0;
				for (int r = 0; r < o.nranks; r++) want += value(r, i, seed);
				if (host[i] != want) { bad = i; break; }
			}
			if (bad == count) {
				printf("check %s %zu ok\n", algo_name[a], size);
			} else {
				float want = 0;
				for (int r = 0; r < o.nranks; r++) want += value(r, bad, seed);
				printf("check %s %zu bad %zu %g %g\n", algo_name[a], size, bad, host[bad], want);
				wrong++;
			}

			for (int i = 0; i < o.warmup; i++) launch();
			CK(cudaEventRecord(t0));
			for (int i = 0; i < o.iters; i++) launch();
			CK(cudaEventRecord(t1));
			check_wait();
			float ms = 0;
			CK(cudaEventElapsedTime(&ms, t0, t1));
			printf("result %s %zu %d %.3f\n", algo_name[a], size, o.iters, ms * 1000.0 / o.iters);
		}
	}
	host_barrier(o, "finished");
	for (int r = 0; r < o.nranks; r++) {
		if (r == o.rank) continue;
		cudaIpcCloseMemHandle((void *)p.in[r]);
		cudaIpcCloseMemHandle(p.tmp[r]);
		cudaIpcCloseMemHandle(p.sig[r]);
	}
	printf("done\n");
	if (wrong) die(EXIT_WRONG, "%d sizes gave wrong sums", wrong);
	return 0;
}
