package nvidiasmi

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
	"io"
	"strconv"
	"strings"
)

// queryFormat starts the errors ParseQuery returns; it is the name the
// parser had before this package held both nvidia-smi outputs.
const queryFormat = "smi"

// Query is one `nvidia-smi -q` output.
type Query struct {
	Timestamp    string `json:"timestamp,omitempty"`
	Driver       string `json:"driver,omitempty"`
	CUDA         string `json:"cuda,omitempty"`
	AttachedGPUs int    `json:"attached_gpus"`
	GPUs         []GPU  `json:"gpus"`
}

// Field is one "Key : Value" line of a GPU section, under its section path.
type Field struct {
	Path  string `json:"path"` // "PCI/GPU Link Info/Link Width/Max"
	Value string `json:"value"`
	Line  int    `json:"line"`
}

// GPU is one GPU's section. Numbers the output shows as N/A stay zero.
type GPU struct {
	BusID           string `json:"bus_id"` // as printed: "00000000:18:00.0"
	Name            string `json:"name,omitempty"`
	Brand           string `json:"brand,omitempty"`
	Architecture    string `json:"architecture,omitempty"`
	UUID            string `json:"uuid,omitempty"`
	Serial          string `json:"serial,omitempty"`
	VBIOS           string `json:"vbios,omitempty"`
	MinorNumber     int    `json:"minor_number"`
	PersistenceMode string `json:"persistence_mode,omitempty"`
	MIGMode         string `json:"mig_mode,omitempty"`
	ECCMode         string `json:"ecc_mode,omitempty"`
	ComputeMode     string `json:"compute_mode,omitempty"`

	PCIeGenMax        int     `json:"pcie_gen_max,omitempty"`
	PCIeGenCurrent    int     `json:"pcie_gen_current,omitempty"`
	PCIeWidthMax      int     `json:"pcie_width_max,omitempty"`
	PCIeWidthCurrent  int     `json:"pcie_width_current,omitempty"`
	PCIeTxKBps        float64 `json:"pcie_tx_kbps,omitempty"`
	PCIeRxKBps        float64 `json:"pcie_rx_kbps,omitempty"`
	ReplaysSinceReset int     `json:"pcie_replays"`

	MemoryTotalMiB    float64 `json:"memory_total_mib,omitempty"`
	MemoryUsedMiB     float64 `json:"memory_used_mib,omitempty"`
	MemoryFreeMiB     float64 `json:"memory_free_mib,omitempty"`
	MemoryReservedMiB float64 `json:"memory_reserved_mib,omitempty"`

	TemperatureC   float64 `json:"temperature_c,omitempty"`
	PowerDrawW     float64 `json:"power_draw_w,omitempty"`
	PowerLimitW    float64 `json:"power_limit_w,omitempty"`
	ClockSMMHz     float64 `json:"clock_sm_mhz,omitempty"`
	ClockMemMHz    float64 `json:"clock_mem_mhz,omitempty"`
	MaxClockSMMHz  float64 `json:"max_clock_sm_mhz,omitempty"`
	MaxClockMemMHz float64 `json:"max_clock_mem_mhz,omitempty"`

	FabricState  string `json:"fabric_state,omitempty"`
	FabricStatus string `json:"fabric_status,omitempty"`

	Fields []Field `json:"fields"`
}

// Get returns the value at a section path ("FB Memory Usage/Total").
func (g GPU) Get(path string) (string, bool) {
	for _, f := range g.Fields {
		if f.Path == path {
			return f.Value, true
		}
	}
	return "", false
}

// first returns the value of the first path present.
func (g GPU) first(paths ...string) string {
	for _, p := range paths {
		if v, ok := g.Get(p); ok {
			return v
		}
	}
	return ""
}

// ParseQueryString parses `nvidia-smi -q` text.
func ParseQueryString(s string) (*Query, error) { return ParseQuery(strings.NewReader(s)) }

// ParseQuery reads `nvidia-smi -q` text. It returns what it read together with
// an error naming the first bad line; input that ends before all attached
// GPUs are listed is reported as truncated.
func ParseQuery(r io.Reader) (*Query, error) {
	rep := &Query{}
	var (
		err     error
		gpu     *GPU
		line    int
		stack   []section
		sawLog  bool
		lastTxt int
	)
	fail := func(n int, msg string) {
		if err == nil {
			err = &parse.Error{Format: queryFormat, Line: n, Msg: msg}
		}
	}
	flush := func() {
		if gpu != nil {
			gpu.fill()
			rep.GPUs = append(rep.GPUs, *gpu)
			gpu = nil
		}
	}
	data, rerr := textinput.ReadClean(r) // srun's "0: ", pdsh's "host: " removed
	if rerr != nil {
		fail(1, "read: "+rerr.Error())
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), " \t\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		lastTxt = line
		trimmed := strings.TrimSpace(text)
		if line <= 3 && strings.HasPrefix(trimmed, "<?xml") {
			return rep, &parse.Error{Format: queryFormat, Line: line, Msg: "this is the XML form (nvidia-smi -q -x); give the text form (nvidia-smi -q)"}
		}
		if strings.Contains(trimmed, "NVSMI LOG") {
			sawLog = true
			continue
		}
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		if indent == 0 {
			if rest, ok := strings.CutPrefix(trimmed, "GPU "); ok && !strings.Contains(trimmed, " : ") {
				flush()
				gpu = &GPU{BusID: strings.TrimSpace(rest)}
				stack = stack[:0]
				continue
			}
			key, value, ok := splitField(trimmed)
			if !ok {
				fail(line, fmt.Sprintf("unexpected line %q", parse.Clip(trimmed, 60)))
				continue
			}
			flush()
			switch key {
			case "Timestamp":
				rep.Timestamp = value
			case "Driver Version":
				rep.Driver = value
			case "CUDA Version":
				rep.CUDA = value
			case "Attached GPUs":
				n, aerr := strconv.Atoi(value)
				if aerr != nil {
					fail(line, fmt.Sprintf("Attached GPUs %q is not a number", value))
				}
				rep.AttachedGPUs = n
			}
			continue
		}
		if gpu == nil {
			fail(line, fmt.Sprintf("indented line %q outside a GPU section", parse.Clip(trimmed, 60)))
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		key, value, ok := splitField(trimmed)
		if !ok {
			stack = append(stack, section{indent: indent, name: trimmed})
			continue
		}
		path := key
		if len(stack) > 0 {
			names := make([]string, 0, len(stack)+1)
			for _, s := range stack {
				names = append(names, s.name)
			}
			path = strings.Join(append(names, key), "/")
		}
		gpu.Fields = append(gpu.Fields, Field{Path: path, Value: value, Line: line})
	}
	if serr := sc.Err(); serr != nil {
		fail(line, "read: "+serr.Error())
	}
	flush()
	if !sawLog && len(rep.GPUs) == 0 && rep.Driver == "" {
		if err != nil {
			return rep, &parse.Error{Format: queryFormat, Msg: "not nvidia-smi -q output: " + strings.TrimPrefix(err.Error(), queryFormat+": "), Err: parse.ErrFormat}
		}
		return rep, &parse.Error{Format: queryFormat, Msg: fmt.Sprintf("not nvidia-smi -q output (%d lines, no NVSMI LOG header or GPU section)", line), Err: parse.ErrFormat}
	}
	if rep.AttachedGPUs > len(rep.GPUs) {
		fail(lastTxt, fmt.Sprintf("input ends after %d of %d attached GPUs (truncated?)", len(rep.GPUs), rep.AttachedGPUs))
	}
	return rep, err
}

type section struct {
	indent int
	name   string
}

// splitField splits "Key      : Value" at the first colon; a line without
// one is a section header.
func splitField(s string) (key, value string, ok bool) {
	i := strings.Index(s, ":")
	if i <= 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
}

// number reads the leading number of a value such as "81559 MiB", "16x",
// "567 KB/s" or "100.89 W"; 0 for N/A and the like.
func number(v string) float64 {
	f := strings.Fields(v)
	if len(f) == 0 {
		return 0
	}
	x, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "x"), 64)
	if err != nil {
		return 0
	}
	return x
}

// kbps reads a throughput such as "567 KB/s" or "1.2 MB/s" as KB/s.
func kbps(v string) float64 {
	x := number(v)
	switch {
	case strings.Contains(v, "MB/s"):
		return x * 1000
	case strings.Contains(v, "GB/s"):
		return x * 1000 * 1000
	}
	return x
}

func (g *GPU) fill() {
	g.Name = g.first("Product Name")
	g.Brand = g.first("Product Brand")
	g.Architecture = g.first("Product Architecture")
	g.UUID = g.first("GPU UUID")
	g.Serial = g.first("Serial Number")
	g.VBIOS = g.first("VBIOS Version")
	g.MinorNumber = int(number(g.first("Minor Number")))
	g.PersistenceMode = g.first("Persistence Mode")
	g.MIGMode = g.first("MIG Mode/Current")
	g.ECCMode = g.first("ECC Mode/Current")
	g.ComputeMode = g.first("Compute Mode")
	g.PCIeGenMax = int(number(g.first("PCI/GPU Link Info/PCIe Generation/Max")))
	g.PCIeGenCurrent = int(number(g.first("PCI/GPU Link Info/PCIe Generation/Current")))
	g.PCIeWidthMax = int(number(g.first("PCI/GPU Link Info/Link Width/Max")))
	g.PCIeWidthCurrent = int(number(g.first("PCI/GPU Link Info/Link Width/Current")))
	g.PCIeTxKBps = kbps(g.first("PCI/Tx Throughput"))
	g.PCIeRxKBps = kbps(g.first("PCI/Rx Throughput"))
	g.ReplaysSinceReset = int(number(g.first("PCI/Replays Since Reset", "PCI/Replays since reset")))
	g.MemoryTotalMiB = number(g.first("FB Memory Usage/Total"))
	g.MemoryUsedMiB = number(g.first("FB Memory Usage/Used"))
	g.MemoryFreeMiB = number(g.first("FB Memory Usage/Free"))
	g.MemoryReservedMiB = number(g.first("FB Memory Usage/Reserved"))
	g.TemperatureC = number(g.first("Temperature/GPU Current Temp"))
	// Drivers from about 550 split Power Draw into Instantaneous and Average.
	g.PowerDrawW = number(g.first("GPU Power Readings/Power Draw", "GPU Power Readings/Instantaneous Power Draw",
		"GPU Power Readings/Average Power Draw", "Power Readings/Power Draw"))
	g.PowerLimitW = number(g.first("GPU Power Readings/Current Power Limit", "Power Readings/Power Limit"))
	g.ClockSMMHz = number(g.first("Clocks/SM"))
	g.ClockMemMHz = number(g.first("Clocks/Memory"))
	g.MaxClockSMMHz = number(g.first("Max Clocks/SM"))
	g.MaxClockMemMHz = number(g.first("Max Clocks/Memory"))
	g.FabricState = g.first("Fabric/State")
	g.FabricStatus = g.first("Fabric/Status")
}

// NormalizeBusID turns nvidia-smi's "00000000:18:00.0" into the sysfs and
// NVML v2 form "0000:18:00.0", lower case.
func NormalizeBusID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if dom, rest, ok := strings.Cut(id, ":"); ok && len(dom) == 8 {
		id = dom[4:] + ":" + rest
	}
	return id
}

// Summary is one line per GPU a person reads first.
func (r *Query) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "driver %s, CUDA %s, %d of %d attached GPUs listed\n", orNA(r.Driver), orNA(r.CUDA), len(r.GPUs), r.AttachedGPUs)
	for i, g := range r.GPUs {
		fmt.Fprintf(&b, "GPU%d %s %s: %s, %.0f MiB, PCIe Gen%d x%d (max Gen%d x%d), %.0f C, %.0f/%.0f W, fabric %s\n",
			i, NormalizeBusID(g.BusID), g.UUID, g.Name, g.MemoryTotalMiB,
			g.PCIeGenCurrent, g.PCIeWidthCurrent, g.PCIeGenMax, g.PCIeWidthMax,
			g.TemperatureC, g.PowerDrawW, g.PowerLimitW, orNA(g.FabricState))
	}
	return b.String()
}

func orNA(s string) string {
	if s == "" {
		return "N/A"
	}
	return s
}
