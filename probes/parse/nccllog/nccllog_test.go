package nccllog

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/commlab/commlab/probes/parse"
	"github.com/commlab/commlab/probes/parse/internal/golden"
	"os"
	"strings"
	"testing"
)

type goldenOutput struct {
	Log   *Log   `json:"log"`
	Error string `json:"error,omitempty"`
}

func fixtures(t testing.TB) []string { return golden.Inputs(t, 10, "testdata/*.log") }

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
				if len(l.Choices) != 1 || l.Choices[0].Source.Dev != -1 || l.Choices[0].Algorithm != "RING" {
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
