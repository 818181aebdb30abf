// Package perftest reads the reports of the linux-rdma/perftest tools:
// ib_write_bw, ib_read_bw, ib_send_bw (and ib_atomic_bw), and the latency
// tools ib_write_lat, ib_read_lat, ib_send_lat, in their text form and in
// the file written with --out_json.
//
// Text reports carry a header block (test title, device, link type, GID
// index, MTU, QP settings), the local and remote QP addresses, the CUDA
// lines printed with --use_cuda, and one results table: bandwidth rows
// ("#bytes #iterations BW peak[..] BW average[..] MsgRate[Mpps]") or
// latency rows (t_min, t_max, t_typical, t_avg, t_stdev, 99% and 99.9%
// percentiles). The bandwidth unit is kept as printed: "MB/sec" (perftest
// before 2024), "MiB/sec" (the same quantity, relabelled in 2024) or
// "Gb/sec" (--report_gbits). Bandwidth is also normalised to bytes per
// second with perftest's own factors (perftest_parameters.c,
// print_report_bw: format_factor 0x100000 for MB/sec, 125000000 for
// Gb/sec); so "MB/sec" here is 2^20 bytes per second, not 10^6.
//
// The --out_json file names no unit. Old releases wrote it with unquoted
// keys and trailing commas (linux-rdma/perftest issue #216); both forms
// are read. The unit is inferred from MsgSize x MsgRate against BW_average
// and flagged as inferred.
//
// Launcher prefixes (srun's "0: ", mpirun's "[1,0]<stdout>:", pdsh's
// "host: ") come off each line of the text report first.
//
// The package owns parsing only: it does not run perftest, does not know
// the probes domain types and draws nothing. Standard library only.
// Truncated or foreign input returns a *parse.Error naming the line,
// together with everything parsed before it.
package perftest
