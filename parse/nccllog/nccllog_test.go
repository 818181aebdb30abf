package nccllog

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"os"
	"strings"
	"testing"
)

type goldenOutput struct {
	Log   *Log   `json:"log"`
	Error string `json:"error,omitempty"`
}

func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 10, "testdata/*.log", "testdata/public/*.log")
}

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		l, perr := ParseBytes(data)
		g := goldenOutput{Log: l}
		if perr != nil {
			g.Error = perr.Error()
		}
		return golden.JSON(t, g, " ")
	})
}

func TestParseH200Recorded(t *testing.T) {
	data, err := os.ReadFile("testdata/h200_torch_allreduce_2.28.9.log")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Versions) != 1 || l.Versions[0] != "2.28.9+cuda13.0" {
		t.Errorf("versions = %v", l.Versions)
	}
	if len(l.Ranks) != 1 || !l.Ranks[0].InitComplete || l.Ranks[0].NRanks != 1 || l.Ranks[0].BusID != "60" || l.Ranks[0].End != "Abort" {
		t.Errorf("ranks = %+v", l.Ranks)
	}
	if len(l.Topology) != 1 || !l.Topology[0].Complete || len(l.Topology[0].Links) != 3 {
		t.Fatalf("topology = %+v", l.Topology)
	}
	if got := l.Topology[0].Links[1]; got.From != "NIC/0-0" || got.To != "NET/0-0" || got.Type != "NET" {
		t.Errorf("nested link = %+v", got)
	}
	if len(l.GraphSearches) != 2 || l.GraphSearches[0].PatternName != "RING" || l.GraphSearches[0].NChannels != 32 || len(l.GraphSearches[0].Channels) != 32 {
		t.Errorf("graph searches = %+v", l.GraphSearches)
	}
	if len(l.Rings) != 64 || len(l.RingLinks) != 64 {
		t.Errorf("rings %d ring links %d", len(l.Rings), len(l.RingLinks))
	}
	if len(l.InitTimings) != 1 || l.InitTimings[0].TotalS != 0.43 || l.InitTimings[0].Phases[0] != (Phase{Name: "kernels", Seconds: 0.40}) {
		t.Errorf("init timings = %+v", l.InitTimings)
	}
	if len(l.ChannelCounts) != 1 || l.ChannelCounts[0].Coll != 64 {
		t.Errorf("channel counts = %+v", l.ChannelCounts)
	}
}

// Lines of several hosts and processes interleave; records keep their
// origin and Processes groups them.
func TestParseGroupsByProcess(t *testing.T) {
	data, err := os.ReadFile("testdata/ncclt252_2node_ibext_transports_excerpt.log")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Hosts(); len(got) != 2 || got[0] != "kolyoz1" || got[1] != "kolyoz2" {
		t.Errorf("hosts = %v", got)
	}
	if len(l.Processes) != 6 {
		t.Fatalf("processes = %+v", l.Processes)
	}
	byProc := map[string]Process{}
	for _, p := range l.Processes {
		byProc[Source{Host: p.Host, PID: p.PID}.Process()] = p
	}
	if p := byProc["kolyoz1:27225"]; len(p.Ranks) != 1 || p.Ranks[0] != 3 || p.Devices[0] != 3 || p.Lines != 3 {
		t.Errorf("kolyoz1:27225 = %+v", p)
	}
	if p := byProc["kolyoz2:25146"]; len(p.Ranks) != 1 || p.Ranks[0] != 4 {
		t.Errorf("kolyoz2:25146 = %+v (rank from its Trees line)", p)
	}
	net := 0
	for _, c := range l.Connections {
		if c.Kind == "NET" {
			net++
			if c.Direction != "receive" || c.Source.Host != "kolyoz2" || c.FromRank != 3 || c.ToRank != 4 {
				t.Errorf("net connection = %+v", c)
			}
		}
	}
	if net != 1 || len(l.Trees) != 16 {
		t.Errorf("net connections %d, trees %d", net, len(l.Trees))
	}
}

func TestParseLineForms(t *testing.T) {
	// Synthetic lines built from the format strings in NCCL's sources
	// (src/enqueue.cc, src/graph/tuning.cc, src/init.cc), with made-up
	// hosts and numbers: no public log with these exact forms was found.
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, l *Log)
	}{
		{
			name: "2.25+ choice with channel range and comm",
			in:   "n1:10:10 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15} comm 0x55a7a339db50\n",
			check: func(t *testing.T, l *Log) {
				want := Choice{Source: Source{Host: "n1", PID: 10, TID: 10, Dev: 0, Line: 1}, Op: "AllReduce", Bytes: 1048576,
					Algorithm: "RING", Protocol: "LL128", ChannelLo: 0, ChannelHi: 15, Comm: "0x55a7a339db50"}
				if len(l.Choices) != 1 || l.Choices[0] != want {
					t.Errorf("choices = %+v", l.Choices)
				}
			},
		},
		{
			name: "2.23 numeric choice with op name",
			in:   "n1:10:10 [0] NCCL INFO AllGather: 65536 Bytes -> Algo 6 proto 0 time 12.500000\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Choices) != 1 || l.Choices[0].Algorithm != "PAT" || l.Choices[0].Protocol != "LL" || l.Choices[0].TimeUs != 12.5 || l.Choices[0].ChannelLo != -1 {
					t.Errorf("choices = %+v", l.Choices)
				}
			},
		},
		{
			name: "new tuning table with two blocks",
			in: "n1:10:11 [0] NCCL INFO   Algorithm   |                               Tree                     |                               Ring                     |                      CollNetDirect                     |\n" +
				"n1:10:11 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |\n" +
				"n1:10:11 [0] NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |              0 |              0 |            640 |\n" +
				"n1:10:11 [0] NCCL INFO     AllReduce |    10.0/   1.0 |    20.0/   2.0 |    30.0/   3.0 |    40.0/   4.0 |    50.0/   5.0 |    60.0/   6.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |\n" +
				"n1:10:11 [0] NCCL INFO   Algorithm   |                       CollNetChain                     |                               NVLS                     |\n" +
				"n1:10:11 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |\n" +
				"n1:10:11 [0] NCCL INFO  Max NThreads |              0 |              0 |            640 |              0 |              0 |            640 |\n" +
				"n1:10:11 [0] NCCL INFO     AllReduce |     0.0/   0.0 |     0.0/   0.0 |     7.0/   7.5 |     0.0/   0.0 |     0.0/   0.0 |    25.0/ 480.0 |\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Tuning) != 1 || len(l.Tuning[0].Entries) != 15 {
					t.Fatalf("tuning = %+v", l.Tuning)
				}
				e := l.Tuning[0].Entries
				if e[4] != (TuningEntry{Function: "AllReduce", Algorithm: "RING", Protocol: "LL128", LatencyUs: 50, BandwidthGBs: 5, MaxThreads: 640}) {
					t.Errorf("ring/LL128 = %+v", e[4])
				}
				if e[14].Algorithm != "NVLS" || e[14].Protocol != "SIMPLE" || e[14].BandwidthGBs != 480 {
					t.Errorf("nvls/simple = %+v", e[14])
				}
			},
		},
		{
			name: "old and new trees, env, init timings, shm transport",
			in: "h:1:2 [3] NCCL INFO Trees [0] 26->25->-1/-1/-1|24->25->-1/-1/-1 [1] 2/-1/-1->25->26\n" +
				"h:1:2 [3] NCCL INFO NCCL_ALGO set by environment to Ring\n" +
				"h:1:2 [3] NCCL INFO Init timings - ncclCommInitRank: rank 3 nranks 8 total 1.25 (kernels 0.20, alloc 0.05, bootstrap 0.50, allgathers 0.01, topo 0.30, graphs 0.01, connections 0.15, rest 0.03)\n" +
				"h:1:2 [3] NCCL INFO Channel 01/0 : 3[3] -> 4[4] via SHM/direct/direct\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Trees) != 3 || l.Trees[1].Part != 1 || l.Trees[1].Parent != 24 || l.Trees[0].Parent != 26 || l.Trees[2].Children[0] != 2 || l.Trees[2].Channel != 1 {
					t.Errorf("trees = %+v", l.Trees)
				}
				if len(l.Env) != 1 || l.Env[0].Value != "Ring" {
					t.Errorf("env = %+v", l.Env)
				}
				if len(l.InitTimings) != 1 || len(l.InitTimings[0].Phases) != 8 || l.InitTimings[0].NRanks != 8 {
					t.Errorf("init timings = %+v", l.InitTimings)
				}
				if len(l.Connections) != 1 || l.Connections[0].Kind != "SHM" || l.Connections[0].ConnIndex != 0 {
					t.Errorf("connections = %+v", l.Connections)
				}
			},
		},
		{
			name: "launcher prefixes and a redacted prefix",
			in: "[1,0]<stdout>:node-a:5:6 [1] NCCL INFO comm 0x1 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\n" +
				"[0] NCCL INFO 805306368 Bytes -> Algo 1 proto 2 time 3970.683594\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 1 || l.Ranks[0].Source.Host != "node-a" || l.Ranks[0].LocalRanks != 2 {
					t.Errorf("ranks = %+v", l.Ranks)
				}
				// "[0] NCCL INFO" is NCCL's own "[cudaDev]" with the
				// host:pid:tid cut away.
				if len(l.Choices) != 1 || l.Choices[0].Source.Dev != 0 || l.Choices[0].Algorithm != "RING" {
					t.Errorf("choices = %+v", l.Choices)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, l)
		})
	}
}

func TestParseTruncated(t *testing.T) {
	data, err := os.ReadFile("testdata/h200_torch_allreduce_2.28.9.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Cut inside the topology dump (it opens on line 26).
	l, err := Parse(strings.NewReader(strings.Join(lines[:28], "")))
	var le *parse.Error
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &le) || le.Line != 26 {
		t.Fatalf("cut in dump: err = %v", err)
	}
	if len(l.Ranks) != 1 || len(l.Topology) != 1 || len(l.Topology[0].Links) != 1 {
		t.Errorf("partial log lost records: ranks %d topo %+v", len(l.Ranks), l.Topology)
	}
	// Cut in the middle of a transport line.
	in := "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\nh:1:2 [0] NCCL INFO Channel 01/0 : 0[0] ->"
	l, err = Parse(strings.NewReader(in))
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "line 2") || len(l.Connections) != 1 {
		t.Fatalf("cut mid-line: err = %v, connections %d", err, len(l.Connections))
	}
	if _, err := Parse(strings.NewReader("just some text\nno nccl here\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("foreign input: err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, in := range fixtures(f) {
		if data, err := os.ReadFile(in); err == nil {
			// The first lines only: Go's fuzzer slows to a crawl on 40 KB
			// inputs, and the shapes repeat after the first few KB.
			if len(data) > 6000 {
				data = data[:bytes.LastIndexByte(data[:6000], '\n')+1]
			}
			f.Add(data)
		}
	}
	f.Add([]byte("h:1:2 [0] NCCL INFO === System : maxBw 1 totalBw 1 ===\nh:1:2 [0] NCCL INFO    + PCI[1] - GPU/0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, _ := ParseBytes(data)
		if l == nil {
			t.Fatal("nil log")
		}
		if _, err := json.Marshal(l); err != nil {
			t.Fatalf("log does not encode: %v", err)
		}
	})
}

// Line forms of older NCCL builds and of RCCL, and output of several
// processes in one file. Lines quoted from public issues say which; the
// others follow the format strings in NVIDIA/nccl src/init.cc at the tag
// named and ROCm/rccl src/init.cc, transport/p2p.cc.
func TestParseVersionsAndInterleaving(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, l *Log)
	}{
		{
			// NVIDIA/nccl#629 (2.9-era build).
			name: "init line with busId, no nvmlDev",
			in:   "A03-R28-I49-3-9000018:193027:193119 [7] NCCL INFO comm 0x7fdf08000d00 rank 15 nranks 16 cudaDev 7 busId e7000 - Init COMPLETE\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 1 || l.Ranks[0].Rank != 15 || l.Ranks[0].NRanks != 16 || l.Ranks[0].BusID != "e7000" || l.Ranks[0].NVMLDev != -1 || !l.Ranks[0].InitComplete {
					t.Errorf("ranks = %+v", l.Ranks)
				}
			},
		},
		{
			// v2.16.5-1 src/init.cc: busId and commId, no nvmlDev.
			name: "2.16 init line",
			in: "n1:1:2 [0] NCCL INFO NCCL version 2.16.5+cuda11.8\n" +
				"n1:1:2 [0] NCCL INFO comm 0x5633 rank 0 nranks 2 cudaDev 0 busId 81000 commId 0xb2f794396f6d0bd1 - Init COMPLETE\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 1 || l.Ranks[0].CommID != "0xb2f794396f6d0bd1" || l.NRanks() != 2 || l.Versions[0] != "2.16.5+cuda11.8" {
					t.Errorf("ranks = %+v, versions %v", l.Ranks, l.Versions)
				}
			},
		},
		{
			// v2.23.4-1: a split communicator, "key %d- Init START".
			name: "2.23 split init",
			in:   "n1:1:2 [3] NCCL INFO ncclCommSplit comm 0x77 rank 1 nranks 4 cudaDev 3 nvmlDev 3 busId 3b000 parent 0x55 color 1 key 1- Init START\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 1 || l.Ranks[0].InitFunc != "ncclCommSplit" || l.Ranks[0].NVMLDev != 3 || !l.Ranks[0].InitStarted {
					t.Errorf("ranks = %+v", l.Ranks)
				}
			},
		},
		{
			// v2.3.7-1: rings printed as "Ring 00 :".
			name: "2.3 ring line",
			in:   "n1:1:2 [0] NCCL INFO Ring 00 :    0   1   2   3\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Rings) != 1 || len(l.Rings[0].Ranks) != 4 {
					t.Errorf("rings = %+v", l.Rings)
				}
			},
		},
		{
			// ROCm/rccl#1026 (trees), ROCm/rccl-tests#163 (the version
			// block); the P2P line from rccl src/transport/p2p.cc.
			name: "RCCL",
			in: "RCCL version : 2.21.5-HEAD:9a0e6a1\n" +
				"HIP version  : 6.3.42134-a9a80e791\n" +
				"g1064:11146:11197 [3] NCCL INFO Trees [0] 2/-1/-1->3->1 [1] 1/-1/-1->3->2 [2] 2/-1/-1->3->1 [3] 1/-1/-1->3->2 comm 0xaa09f20 nRanks 08 busId ce000\n" +
				"g1064:11146:11197 [3] NCCL INFO Ring 00 : 2 -> 3 -> 1 comm 0xaa09f20 nRanks 08 busId ce000\n" +
				"g1064:11146:11197 [3] NCCL INFO Channel 00/0 : 3[ce000] -> 1[c6000] via P2P/IPC comm 0xaa09f20 nRanks 08\n",
			check: func(t *testing.T, l *Log) {
				if l.Library != "RCCL" || len(l.Versions) != 1 || l.Versions[0] != "2.21.5-HEAD:9a0e6a1" {
					t.Errorf("library %q versions %v", l.Library, l.Versions)
				}
				if len(l.Trees) != 4 || l.Trees[0].Rank != 3 || l.Trees[0].Parent != 1 || l.Trees[3].Comm != "0xaa09f20" {
					t.Errorf("trees = %+v", l.Trees)
				}
				if len(l.RingLinks) != 1 || l.RingLinks[0].Next != 1 {
					t.Errorf("ring links = %+v", l.RingLinks)
				}
				if len(l.Connections) != 1 || l.Connections[0].Transport != "P2P/IPC" || l.Connections[0].Comm != "0xaa09f20" {
					t.Errorf("connections = %+v", l.Connections)
				}
			},
		},
		{
			name: "old RCCL banner",
			in:   "node1:1:1 [0] NCCL INFO RCCL version 2.18.3+hip6.0 HEAD:2b22ab0\n",
			check: func(t *testing.T, l *Log) {
				if l.Library != "RCCL" || len(l.Versions) != 1 || l.Versions[0] != "2.18.3+hip6.0" {
					t.Errorf("library %q versions %v", l.Library, l.Versions)
				}
			},
		},
		{
			// nccl-tests' table rows and NCCL's lines in one file: the
			// row's last field glued to the host.
			name: "table text before the prefix",
			in: "node7:12:34 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" +
				"         128            32     float     sum      -1node7:12:34 [0] NCCL INFO AllReduce: 128 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n" +
				"    61.58    0.00    0.00      0gpu-b:99:100 [1] NCCL INFO AllReduce: 128 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n",
			check: func(t *testing.T, l *Log) {
				if got := l.Hosts(); len(got) != 1 || got[0] != "node7" {
					t.Errorf("hosts = %v", got)
				}
				if len(l.Choices) != 2 || l.Choices[0].Source.Host != "node7" || l.Choices[1].Source.Host != "gpu-b" {
					t.Errorf("choices = %+v", l.Choices)
				}
				if l.Interleaved != 2 || len(l.Processes) != 2 {
					t.Errorf("interleaved %d, processes %+v", l.Interleaved, l.Processes)
				}
			},
		},
		{
			name: "two processes on one line",
			in:   "n1:10:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/readn1:20:21 [1] NCCL INFO Trees [0] -1/-1/-1->1->0\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Trees) != 1 || l.Trees[0].Source.PID != 20 || l.Trees[0].Rank != 1 {
					t.Errorf("trees = %+v", l.Trees)
				}
				if len(l.Connections) != 1 || l.Connections[0].Transport != "P2P/CUMEM/read" || l.Interleaved != 1 {
					t.Errorf("connections = %+v, interleaved %d", l.Connections, l.Interleaved)
				}
			},
		},
		{
			name: "pdsh labels",
			in:   "gpu-a: gpu-a:10:11 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 1 || l.Ranks[0].Source.Host != "gpu-a" || l.Interleaved != 0 {
					t.Errorf("ranks = %+v, interleaved %d", l.Ranks, l.Interleaved)
				}
			},
		},
		{
			name: "srun and torchrun prefixes",
			in: "0: n1:10:11 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n" +
				"[default1]:n1:12:13 [1] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0\n",
			check: func(t *testing.T, l *Log) {
				if len(l.Ranks) != 2 || l.Ranks[1].Source.Host != "n1" || l.Interleaved != 0 {
					t.Errorf("ranks = %+v", l.Ranks)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, l)
		})
	}
}
