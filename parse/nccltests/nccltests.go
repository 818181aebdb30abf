package nccltests

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/units"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrTruncated: the input stops in the middle of a row or before a
	// run's footer.
	ErrTruncated = errors.New("nccltests: truncated input")
	// ErrMalformed: a row or a JSON value has the wrong shape.
	ErrMalformed = errors.New("nccltests: malformed input")
	// ErrUnknownCollective: no bus-bandwidth factor is known for the name.
	ErrUnknownCollective = errors.New("nccltests: unknown collective")
	// ErrTestFailed: nccl-tests reported a failure ("Test NCCL failure",
	// "Test CUDA failure", "Test failure"); Run.Failures has its lines.
	ErrTestFailed = errors.New("nccltests: the test reported a failure")
)

// Result is everything parsed from one input: one Run per benchmark
// invocation found in it (a log may hold several back to back).
type Result struct {
	// Format is "text" or "json".
	Format string `json:"format"`
	Runs   []Run  `json:"runs"`
	// DebugLines counts NCCL_DEBUG lines that were skipped.
	DebugLines int `json:"debug_lines"`
	// IgnoredLines counts other lines that were not nccl-tests output
	// (launcher chatter, shell prompts).
	IgnoredLines int `json:"ignored_lines"`
}

// Run is one benchmark invocation: its header, rows and footer.
// chart.NCCLTestsBusBW(run) (and chart.NCCLTestsTime) gives its chart
// series; as a cell's last expression a run, or a whole Result, shows as
// a bus-bandwidth chart, and its Rows as a table with units.
type Run struct {
	// Program is the binary name, e.g. "all_reduce_perf", when the output
	// names it (newer versions, a command line in the log, JSON args).
	Program string `json:"program,omitempty"`
	// Collective is Program without the _perf/_mpi suffix, e.g.
	// "all_reduce".
	Collective string `json:"collective,omitempty"`
	// TestsVersion is the nccl-tests version ("2.18.3"); NCCLHeaders and
	// NCCLLibrary are the NCCL version codes it reports (23003 = 2.30.3).
	TestsVersion string `json:"tests_version,omitempty"`
	NCCLHeaders  int    `json:"nccl_headers,omitempty"`
	NCCLLibrary  int    `json:"nccl_library,omitempty"`
	// NCCLVersion is the "NCCL version 2.30.3+cuda13.0" banner when NCCL
	// printed it into the same output (RCCL's "RCCL version 2.18.3+hip6.0"
	// or "RCCL version : 2.21.5-HEAD:9a0e6a1": the version alone).
	NCCLVersion string `json:"nccl_version,omitempty"`
	// Library is "RCCL" when the output is rccl-tests' or RCCL's banner
	// says so; "" for NCCL.
	Library string   `json:"library,omitempty"`
	Params  Params   `json:"params"`
	Devices []Device `json:"devices,omitempty"`
	// Columns are the column names of the table header as printed.
	Columns []string `json:"columns,omitempty"`
	// WrongColumn is "#wrong" (count of wrong elements) or "error" (old
	// versions: maximum deviation).
	WrongColumn string `json:"wrong_column,omitempty"`
	Rows        []Row  `json:"rows"`
	// Footer values; HasFooter is false when the output stops before it.
	HasFooter       bool     `json:"has_footer"`
	OutOfBounds     int      `json:"out_of_bounds"`
	OutOfBoundsOK   bool     `json:"out_of_bounds_ok"`
	AvgBusBW        float64  `json:"avg_busbw" unit:"GB/s"`
	AvgBusBWVerdict string   `json:"avg_busbw_verdict,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
	Errors          []string `json:"errors,omitempty"`
	// Failures are nccl-tests' own failure lines ("node3: Test NCCL failure
	// common.cu:958 'unhandled system error'"), each with the message line
	// that followed it when that line carried the reason.
	Failures []string `json:"failures,omitempty"`
	// Ranks is the number of ranks that ran the benchmark, and RanksFrom
	// how it was found: "device lines" (one per rank), "busbw/algbw = 1.75:
	// all_reduce on 8 ranks" (the factor nccl-tests applied; it wins when
	// the device lines are fewer, as in an excerpt), "size/count = 8" (the
	// collectives whose size is the count times the ranks), or "nThread x
	// nGpus (one process assumed)". 0 and "" when nothing tells.
	Ranks     int    `json:"ranks,omitempty"`
	RanksFrom string `json:"ranks_from,omitempty"`
	// CollectiveFrom says where Collective came from: "program name"
	// when the output names the binary, else what the columns show
	// ("redop none, root column set, size = count x type size, busbw =
	// algbw: broadcast"), or why they could not tell ("gather or scatter:
	// the columns fit both"), Collective then staying "".
	CollectiveFrom string `json:"collective_from,omitempty"`
	// Notes are what the parser inferred or set aside in plain words: the
	// device lines disagreeing with busbw/algbw, a named collective its
	// columns contradict, host labels removed.
	Notes     []string `json:"notes,omitempty"`
	StartLine int      `json:"start_line"`
}

// Params is the `# nThread ... nGpus ...` header line. Fields absent from
// older versions stay zero; Raw keeps the line.
type Params struct {
	NThread     int    `json:"nthread"`
	NGpus       int    `json:"ngpus"`
	MinBytes    int64  `json:"min_bytes" unit:"B"`
	MaxBytes    int64  `json:"max_bytes" unit:"B"`
	StepFactor  int64  `json:"step_factor,omitempty"`
	StepBytes   int64  `json:"step_bytes,omitempty"`
	WarmupIters int    `json:"warmup_iters"`
	Iters       int    `json:"iters"`
	AggIters    int    `json:"agg_iters,omitempty"`
	Validation  int    `json:"validation"`
	Graph       int    `json:"graph,omitempty"`
	Raw         string `json:"raw,omitempty"`
}

// Device is one `#  Rank  0 Group  0 Pid 123 on host device 0 [bus] name`
// line. Group is absent (0) in old versions.
type Device struct {
	Rank    int    `json:"rank"`
	Group   int    `json:"group"`
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	CUDADev int    `json:"cuda_dev"`
	BusID   string `json:"bus_id"`
	Name    string `json:"name"`
}

// Row is one message size: the common columns and the two halves.
type Row struct {
	SizeBytes int64  `json:"size_bytes" unit:"B"`
	Count     int64  `json:"count"`
	Type      string `json:"type"`
	// RedOp is empty for layouts without a redop column (old broadcast).
	RedOp string `json:"redop,omitempty"`
	// Root is -1 when the collective has no root or the column is absent.
	Root       int         `json:"root"`
	OutOfPlace Measurement `json:"out_of_place"`
	InPlace    Measurement `json:"in_place"`
	// Timestamp is set with nccl-tests -R (report timestamps).
	Timestamp string `json:"timestamp,omitempty"`
	Line      int    `json:"line"`
}

// Measurement is one half of a row.
type Measurement struct {
	// Present is false when the half was not printed (trace replay prints
	// in-place only).
	Present bool    `json:"present"`
	TimeUs  float64 `json:"time_us" unit:"us"`
	// CPUTime is true when the column was `cputime` (nccl-tests -C).
	CPUTime bool    `json:"cpu_time,omitempty"`
	AlgBW   float64 `json:"algbw_gbs" unit:"GB/s"`
	BusBW   float64 `json:"busbw_gbs" unit:"GB/s"`
	// Wrong is the #wrong count (or the old error column's deviation);
	// WrongNA is set when the column says N/A (validation off, -c 0).
	Wrong   float64 `json:"wrong"`
	WrongNA bool    `json:"wrong_na,omitempty"`
	// NotANumber is set when a value was "nan" or "inf" (a zero time;
	// kept as 0, JSON having no infinities).
	NotANumber bool `json:"not_a_number,omitempty"`
	// Per-iteration statistics (newer versions with per-iteration timing).
	IterMinUs float64 `json:"iter_min_us,omitempty"`
	IterMaxUs float64 `json:"iter_max_us,omitempty"`
	IterP99Us float64 `json:"iter_p99_us,omitempty"`
	IterCVPct float64 `json:"iter_cv_pct,omitempty"`
}

// LibraryVersion is the NCCL version of the run: the banner's when NCCL
// printed one, else nccl-tests' nccl-library code decoded (22803 is
// "2.28.3"; codes before 2.9 are major*1000+minor*100+patch). Empty when
// the output names neither.
func (r *Run) LibraryVersion() string {
	switch {
	case r.NCCLVersion != "":
		return r.NCCLVersion
	case r.NCCLLibrary >= 20900:
		return fmt.Sprintf("%d.%d.%d", r.NCCLLibrary/10000, r.NCCLLibrary/100%100, r.NCCLLibrary%100)
	case r.NCCLLibrary > 0:
		return fmt.Sprintf("%d.%d.%d", r.NCCLLibrary/1000, r.NCCLLibrary/100%10, r.NCCLLibrary%100)
	}
	return ""
}

// NRanks is the number of ranks the run reports: Ranks when the parser
// found it, else its device lines, or nThread x nGpus when the device
// lines are missing (one process).
func (r *Run) NRanks() int {
	if r.Ranks > 0 {
		return r.Ranks
	}
	if len(r.Devices) > 0 {
		seen := map[string]bool{}
		for _, d := range r.Devices {
			seen[fmt.Sprintf("%d/%s/%d", d.Rank, d.Host, d.PID)] = true
		}
		return len(seen)
	}
	return r.Params.NThread * r.Params.NGpus
}

// BusBWFactor is the factor nccl-tests multiplies algbw by for this run's
// collective and rank count.
func (r *Run) BusBWFactor() (float64, error) {
	return BusBWFactor(r.Collective, r.NRanks())
}

// SizesBytes returns the size column as float64, in row order.
func (r *Run) SizesBytes() []float64 {
	out := make([]float64, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = float64(row.SizeBytes)
	}
	return out
}

// OutOfPlaceTimeUs returns the out-of-place time column in microseconds.
func (r *Run) OutOfPlaceTimeUs() []float64 {
	return r.column(func(row Row) float64 { return row.OutOfPlace.TimeUs })
}

// InPlaceTimeUs returns the in-place time column in microseconds.
func (r *Run) InPlaceTimeUs() []float64 {
	return r.column(func(row Row) float64 { return row.InPlace.TimeUs })
}

// OutOfPlaceAlgBW returns the out-of-place algbw column in GB/s.
func (r *Run) OutOfPlaceAlgBW() []float64 {
	return r.column(func(row Row) float64 { return row.OutOfPlace.AlgBW })
}

// OutOfPlaceBusBW returns the out-of-place busbw column in GB/s.
func (r *Run) OutOfPlaceBusBW() []float64 {
	return r.column(func(row Row) float64 { return row.OutOfPlace.BusBW })
}

// InPlaceBusBW returns the in-place busbw column in GB/s.
func (r *Run) InPlaceBusBW() []float64 {
	return r.column(func(row Row) float64 { return row.InPlace.BusBW })
}

func (r *Run) column(get func(Row) float64) []float64 {
	out := make([]float64, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = get(row)
	}
	return out
}

// MeanBusBW is the mean of every busbw printed in both halves, which is
// how nccl-tests computes its "Avg bus bandwidth" footer; it lets a caller
// check a parsed run against its footer or summarise a truncated one.
func (r *Run) MeanBusBW() float64 {
	sum, n := 0.0, 0
	for _, row := range r.Rows {
		for _, m := range []Measurement{row.OutOfPlace, row.InPlace} {
			if m.Present {
				sum += m.BusBW
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// collectiveFromProgram turns "/opt/nccl-tests/build/all_reduce_perf_mpi"
// into "all_reduce".
func collectiveFromProgram(program string) string {
	name := path.Base(strings.TrimSpace(program))
	name = strings.TrimSuffix(name, "_mpi")
	name = strings.TrimSuffix(name, "_perf")
	return name
}

func (r *Run) setProgram(program string) {
	program = path.Base(strings.TrimSpace(program))
	if program == "" || program == "." || program == "/" {
		return
	}
	r.Program = program
	r.Collective = collectiveFromProgram(program)
}

// WriteSummary writes what a person reads first about the runs in nccl-tests
// output: a line naming the input (file), then per run its benchmark,
// devices and bus-bandwidth factor, the table of rows, and the footer's
// average or that the output was cut short.
func (res *Result) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		fmt.Fprintf(w, "%s: nccl-tests %s output, %d run(s)\n", file, res.Format, len(res.Runs))
		for _, run := range res.Runs {
			name := run.Program
			switch {
			case name == "" && run.Collective != "":
				name = run.Collective + " (from the columns; the output does not name the benchmark)"
			case name == "":
				name = "(benchmark not named in the output)"
			}
			var about []string
			if run.TestsVersion != "" {
				suite := "nccl-tests "
				if run.Library == "RCCL" {
					suite = "rccl-tests "
				}
				about = append(about, suite+run.TestsVersion)
			}
			if v := run.LibraryVersion(); v != "" {
				lib := "NCCL "
				if run.Library == "RCCL" {
					lib = "RCCL "
				}
				about = append(about, lib+v)
			}
			hosts := map[string]bool{}
			for _, d := range run.Devices {
				hosts[d.Host] = true
			}
			if n := run.NRanks(); n > 0 {
				about = append(about, fmt.Sprintf("%d ranks on %d host(s)", n, max(1, len(hosts))))
			}
			fmt.Fprintf(w, "\n%s", name)
			if len(about) > 0 {
				fmt.Fprintf(w, " (%s)", strings.Join(about, ", "))
			}
			fmt.Fprintln(w)
			if run.CollectiveFrom != "" && run.CollectiveFrom != "program name" {
				fmt.Fprintf(w, "collective: %s\n", run.CollectiveFrom)
			}
			if run.RanksFrom != "" && run.RanksFrom != "device lines" {
				fmt.Fprintf(w, "ranks: %s\n", run.RanksFrom)
			}
			for _, n := range run.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			if len(run.Devices) > 0 {
				fmt.Fprintf(w, "devices: %s", run.Devices[0].Name)
				if len(run.Devices) > 1 {
					fmt.Fprintf(w, " ... %s", run.Devices[len(run.Devices)-1].Name)
				}
				fmt.Fprintln(w)
			}
			if len(run.Rows) == 0 {
				// A failed run measured nothing: no factor to explain.
				fmt.Fprintln(w, "no rows")
				continue
			}
			if f, err := run.BusBWFactor(); err == nil {
				fmt.Fprintf(w, "busbw = algbw x %.4g (%s on %d ranks)\n", f, run.Collective, run.NRanks())
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "size\ttype\top\ttime us\talgbw GB/s\tbusbw GB/s\tin-place us\tin-place busbw\twrong\t")
			for _, r := range run.Rows {
				wrong := fmt.Sprintf("%g", r.OutOfPlace.Wrong+r.InPlace.Wrong)
				if r.OutOfPlace.WrongNA {
					wrong = "N/A"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", units.FormatSize(r.SizeBytes), r.Type, r.RedOp,
					r.OutOfPlace.TimeUs, r.OutOfPlace.AlgBW, r.OutOfPlace.BusBW, r.InPlace.TimeUs, r.InPlace.BusBW, wrong)
			}
			tw.Flush()
			if run.HasFooter {
				fmt.Fprintf(w, "avg bus bandwidth %.4g GB/s (mean of the rows %.4g); out of bounds %d\n", run.AvgBusBW, run.MeanBusBW(), run.OutOfBounds)
			} else {
				fmt.Fprintf(w, "no footer (output cut short); mean busbw of the rows %.4g GB/s\n", run.MeanBusBW())
			}
			for _, warn := range run.Warnings {
				fmt.Fprintln(w, "NCCL WARN", warn)
			}
		}
	})
}
