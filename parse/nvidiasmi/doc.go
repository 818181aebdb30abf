// Package nvidiasmi parses the texts nvidia-smi prints that the labs
// read: the topology matrix of `nvidia-smi topo -m` (ParseTopoMatrix) and
// the full query of `nvidia-smi -q`, the NVSMI LOG (ParseQuery), and the
// samples of `--query-gpu ... --format=csv` (ParseSamples).
//
// ParseTopoMatrix turns `topo -m` (and `topo -mp`) into a TopoMatrix: the
// path cells between GPUs and NICs, each GPU's CPU affinity, NUMA affinity
// and GPU NUMA ID, and the NIC legend. It reads the variants seen in the
// wild: tab-separated or space-aligned (copied from a terminal), terminal
// escape codes for underlining, NIC columns named NICn with a NIC legend
// (drivers from about 2022) or named after the device (mlx5_0, older
// drivers), the SOC level of drivers before NODE existed, and outputs
// without the affinity columns. TopoMatrix.Topology turns it into a
// probes.Topology with an inferred graph, which a notebook draws.
//
// ParseQuery turns `-q` into a Query: driver and CUDA versions and, per
// GPU, every "Key : Value" line under its section path ("PCI/GPU Link
// Info/PCIe Generation/Max"), with the facts the labs use pulled out as
// typed fields: name, UUID, bus id, memory, PCIe generation and width
// (current and max), PCIe throughput, clocks, power, temperature, ECC, MIG
// and NVLink fabric state. It reads old and new driver outputs alike (the
// section names it types are looked up under both spellings, such as
// "Power Readings" before 535 and "GPU Power Readings" after). It does not
// read the XML form (-q -x).
//
// ParseSamples reads a --query-gpu=... --format=csv output (one row a
// sample, as -lms takes them) into its header and rows, as printed.
//
// The first two read output as launchers deliver it: srun's "0: ", mpirun's
// "[1,0]<stdout>:" and pdsh's "host: " come off every line first.
//
// Errors are *parse.Error naming the line; input that is not the output
// asked for wraps parse.ErrFormat. The package returns its own plain types
// and imports only parse and, for TopoMatrix.Topology, the probes
// domain types (parsers sit at the lowest dependency levels). It does not run nvidia-smi; probes/nvml reads the same facts live.
package nvidiasmi
