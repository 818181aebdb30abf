package nvbandwidth

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

// fixtures are the inputs under testdata (SOURCES.md says where each comes
// from); every one has a .golden beside it.
func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 1, "testdata/*.txt", "testdata/*.json")
}

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		rep, perr := Parse(bytes.NewReader(data))
		return render(t, rep, perr)
	})
}

func render(t *testing.T, rep *Report, err error) []byte {
	t.Helper()
	out := struct {
		Error  string  `json:"error,omitempty"`
		Report *Report `json:"report"`
	}{Report: rep}
	if err != nil {
		out.Error = err.Error()
	}
	return golden.JSON(t, out, "  ")
}

func TestParseFacts(t *testing.T) {
	cases := []struct {
		file     string
		testcase string
		row, col int
		want     float64 // NaN for N/A
		sum      float64
		unit     string
		method   string
		rowLabel string
		colLabel string
		dir      string
	}{
		{"text_v0.10_azure_2gpu.txt", "device_to_device_memcpy_read_ce", 1, 0, 276.19, 552.26, "GB/s", "CE", "GPU", "GPU", "<-"},
		{"text_v0.10_azure_2gpu.txt", "device_to_device_memcpy_read_ce", 0, 0, math.NaN(), 552.26, "GB/s", "CE", "GPU", "GPU", "<-"},
		{"text_v0.8_a6000_issue50.txt", "device_to_device_memcpy_read_ce", 3, 5, 26.35, 715.53, "GB/s", "CE", "GPU", "GPU", "->"},
		{"text_v0.1_readme_example.txt", "host_to_device_bidirectional_memcpy_ce", 0, 1, 0.34, 0, "GB/s", "CE", "CPU", "GPU", "->"},
		{"json_v0.5_dcgm_verbose.json", "host_device_latency_sm", 0, 0, 649.879, 649.87858038348088, "ns", "SM", "CPU", "GPU", "<->"},
		{"json_v0.5_dcgm_with_warnings.txt", "device_to_host_memcpy_ce", 0, 0, 13.2001, 13.200093726, "GB/s", "CE", "CPU", "GPU", "<-"},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.testcase, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Parse(f)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tc, ok := rep.Testcase(c.testcase)
			if !ok {
				t.Fatalf("testcase %s missing; have %d testcases", c.testcase, len(rep.Testcases))
			}
			got := tc.Value(c.row, c.col)
			if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && got != c.want) {
				t.Errorf("cell [%d][%d] = %v, want %v", c.row, c.col, got, c.want)
			}
			if tc.Sum != c.sum {
				t.Errorf("sum = %v, want %v", tc.Sum, c.sum)
			}
			if tc.Unit != c.unit || tc.Method != c.method || tc.RowLabel != c.rowLabel || tc.ColumnLabel != c.colLabel || tc.Direction != c.dir {
				t.Errorf("unit/method/labels = %q %q %q %q %q, want %q %q %q %q %q",
					tc.Unit, tc.Method, tc.RowLabel, tc.ColumnLabel, tc.Direction, c.unit, c.method, c.rowLabel, c.colLabel, c.dir)
			}
		})
	}
}

// Bidirectional testcases say what their numbers are: one direction while
// the reverse runs, except the device-to-device "Total" matrices (v0.6+)
// and device-to-device SM testcases up to v0.5, which count both ways.
// Text and -j output of the same run agree.
func TestParseBidirectional(t *testing.T) {
	cases := []struct {
		file, testcase string
		group          string
		note           string // "" for a unidirectional testcase
		row, col       int
		value, sum     float64
	}{
		{"text_v0.8_h200_1gpu.txt", "host_to_device_bidirectional_memcpy_ce", "", OneWay, 0, 0, 51.67, 51.67},
		{"text_v0.8_h200_1gpu.txt", "host_to_device_memcpy_ce", "", "", 0, 0, 55.55, 55.55},
		{"text_v0.1_readme_example.txt", "host_to_device_bidirectional_memcpy_ce", "", OneWay, 0, 1, 0.34, 0},
		{"text_v0.8_synthetic_2gpu_bidir.txt", "device_to_device_bidirectional_memcpy_read_ce_read1", "device_to_device_bidirectional_memcpy_read_ce", OneWay, 0, 1, 370.12, 740},
		{"text_v0.8_synthetic_2gpu_bidir.txt", "device_to_device_bidirectional_memcpy_read_ce_read2", "device_to_device_bidirectional_memcpy_read_ce", OneWay, 1, 0, 370.47, 741.52},
		{"text_v0.8_synthetic_2gpu_bidir.txt", "device_to_device_bidirectional_memcpy_read_ce_total", "device_to_device_bidirectional_memcpy_read_ce", TwoWaySum, 0, 1, 741.17, 1481.52},
		{"text_v0.8_synthetic_2gpu_bidir.txt", "device_to_device_bidirectional_memcpy_write_sm_write2", "device_to_device_bidirectional_memcpy_write_sm", OneWay, 1, 0, 375.61, 750.59},
		{"text_v0.8_synthetic_2gpu_bidir.txt", "device_to_device_memcpy_write_ce", "", "", 1, 0, 390.12, 780.03},
		{"json_v0.8_synthetic_2gpu_bidir.json", "device_to_device_bidirectional_memcpy_read_ce_read2", "device_to_device_bidirectional_memcpy_read_ce", OneWay, 1, 0, 370.466, 741.518},
		{"json_v0.8_synthetic_2gpu_bidir.json", "device_to_device_bidirectional_memcpy_read_ce_total", "device_to_device_bidirectional_memcpy_read_ce", TwoWaySum, 1, 0, 740.35, 1481.52},
		{"json_v0.8_synthetic_2gpu_bidir.json", "host_to_device_bidirectional_memcpy_ce", "", OneWay, 0, 1, 51.5213, 103.1915},
		{"json_v0.5_dcgm_verbose.json", "device_to_device_bidirectional_memcpy_read_sm", "", TwoWayAggregate, -1, -1, 0, 0},
		{"json_v0.5_dcgm_verbose.json", "device_to_device_bidirectional_memcpy_read_ce", "", OneWay, -1, -1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.testcase, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tc, ok := rep.Testcase(c.testcase)
			if !ok {
				t.Fatalf("testcase %s missing", c.testcase)
			}
			if tc.Bidirectional != (c.note != "") || tc.DirectionNote != c.note || tc.Group != c.group {
				t.Errorf("bidirectional %v note %q group %q; want note %q group %q", tc.Bidirectional, tc.DirectionNote, tc.Group, c.note, c.group)
			}
			if tc.IsTwoWay() != (c.note == TwoWaySum || c.note == TwoWayAggregate) {
				t.Errorf("IsTwoWay %v for note %q", tc.IsTwoWay(), c.note)
			}
			if c.row >= 0 {
				if v := tc.Value(c.row, c.col); math.Abs(v-c.value) > 1e-9 {
					t.Errorf("cell [%d][%d] = %v, want %v", c.row, c.col, v, c.value)
				}
				if math.Abs(tc.Sum-c.sum) > 1e-3 || tc.Status != StatusPassed {
					t.Errorf("sum %v status %s, want %v Passed", tc.Sum, tc.Status, c.sum)
				}
			}
		})
	}
}

// The summary puts the note beside every bidirectional number.
func TestSummaryNotesDirection(t *testing.T) {
	data, err := os.ReadFile("testdata/text_v0.8_synthetic_2gpu_bidir.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	text := rep.String()
	for _, want := range []string{
		"host_to_device_bidirectional_memcpy_ce: Passed, memcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s), sum 103.19 GB/s [" + OneWay + "]",
		"device_to_device_bidirectional_memcpy_read_ce_total: Passed, memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s), sum 1481.52 GB/s [" + TwoWaySum + "]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "bidirectional") && !strings.Contains(line, "[") {
			t.Errorf("bidirectional line without its note: %q", line)
		}
	}
}

func TestParseHeader(t *testing.T) {
	f, err := os.Open("testdata/text_v0.7_a100_issue34_assert.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != "v0.7" || rep.CUDARuntimeVersion != 12040 || rep.DriverVersion != "550.127.08" {
		t.Errorf("header = %q %d %q", rep.Version, rep.CUDARuntimeVersion, rep.DriverVersion)
	}
	if len(rep.Devices) != 8 || rep.Devices[4].BusID != "00000000:9b:00" || rep.Devices[7].Name != "NVIDIA A100-SXM4-80GB" {
		t.Errorf("devices = %+v", rep.Devices)
	}
	if len(rep.Testcases) != 1 || rep.Testcases[0].Status != StatusError || !strings.Contains(rep.Testcases[0].Error, "ASSERT in expression") {
		t.Errorf("failed testcase not kept as an error: %+v", rep.Testcases)
	}
}

func TestParseBroken(t *testing.T) {
	azure, err := os.ReadFile("testdata/text_v0.10_azure_2gpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	cut := func(marker string) string {
		i := strings.Index(string(azure), marker)
		if i < 0 {
			t.Fatalf("marker %q not in fixture", marker)
		}
		return string(azure[:i+len(marker)])
	}
	jsonData, err := os.ReadFile("testdata/json_v0.5_dcgm_verbose.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		input     string
		kind      error
		line      int
		testcases int // parsed before the failure
	}{
		{"foreign text", "hello world\nthis is not it\n", parse.ErrFormat, 1, 0},
		{"empty", "", parse.ErrFormat, 0, 0},
		{"ends after Running", cut("Running device_to_device_memcpy_read_ce.\n"), ErrTruncated, 19, 3},
		{"ends inside matrix", cut("0       N/A    276.07\n"), ErrTruncated, 22, 3},
		{"ends inside a row", cut("1    276.1"), ErrMalformed, 23, 3},
		{"bad cell", strings.Replace(string(azure), "25.94", "2x.94", 1), ErrMalformed, 4, 1},
		{"bad sum", strings.Replace(string(azure), "SUM host_to_device_memcpy_ce 51.97", "SUM host_to_device_memcpy_ce", 1), ErrMalformed, 6, 1},
		{"truncated JSON", string(jsonData[:len(jsonData)/2]), ErrTruncated, 0, 0},
		{"JSON without key", `{"other": 1}`, parse.ErrFormat, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Parse(strings.NewReader(c.input))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %v is not %v", err, c.kind)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error", err)
			}
			if c.line > 0 && pe.Line != c.line {
				t.Errorf("error names line %d, want %d (%v)", pe.Line, c.line, err)
			}
			if rep == nil {
				t.Fatal("nil report with error")
			}
			if len(rep.Testcases) != c.testcases {
				t.Errorf("kept %d testcases, want %d", len(rep.Testcases), c.testcases)
			}
		})
	}
}

func TestBytesPerSecond(t *testing.T) {
	tc := Testcase{Unit: "GB/s", Matrix: [][]float64{{math.NaN(), 276.07}}}
	if got := tc.BytesPerSecond(0, 1); got != 276.07e9 {
		t.Errorf("BytesPerSecond = %v, want 2.7607e11", got)
	}
	if got := tc.BytesPerSecond(0, 0); !math.IsNaN(got) {
		t.Errorf("N/A cell = %v, want NaN", got)
	}
	lat := Testcase{Unit: "ns", Matrix: [][]float64{{613.22}}}
	if got := lat.BytesPerSecond(0, 0); !math.IsNaN(got) {
		t.Errorf("latency as bandwidth = %v, want NaN", got)
	}
	if cells := tc.Cells(); len(cells) != 1 || cells[0].Col != 1 {
		t.Errorf("Cells = %+v", cells)
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range fixtures(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse(bytes.NewReader(data))
		if rep == nil {
			t.Fatalf("nil report (err %v)", err)
		}
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error: %v", err, err)
			}
		}
		if _, merr := json.Marshal(rep); merr != nil {
			t.Fatalf("report does not marshal: %v", merr)
		}
	})
}
