package c10dlab

import (
	"bufio"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes/recorded"
)

// ShortRunArgs are the script flags of a live run that fits in well under
// a minute on one GPU: the NCCL timeout modes of the chapter (unset, 1, 3),
// side by side, with a 1 s timeout, the collective held 0.5 s past it, and
// TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC=500, so that the watchdog sleeps 2 s
// instead of a minute before it acts; the other parts that time nothing on
// the GPU run beside them and coalesce alone after. The order of events is
// the one the defaults give: the held collective ends (1.5 s after it was
// issued) before the watchdog's sleep does (it starts once the stack of the
// failed collective is printed, 3.7 to 5 s after the timeout on an H100
// with torch 2.11), so the next collective still waits for the watchdog.
// The dump wait stays at 500 ms: at 200 ms the watchdog aborted one mode of
// three before its Flight Recorder dump was written, in both of two runs on
// the H100. The recorded runs keep the default times.
var ShortRunArgs = []string{"--modes", "unset,1,3", "--timeout", "1", "--stall", "0.5", "--dump-wait-ms", "500", "--concurrent"}

// FirstRunLog is the recorded log of a first NCCL run over all five
// TORCH_NCCL_ASYNC_ERROR_HANDLING values on one H200, cut short while mode
// 2 ran: it wrote no summary, only the script's own lines.
const FirstRunLog = RecordedH200 + "/all-modes-first-run.log"

// LoggedEnding is how one mode's ranks ended, as the script logs it when
// the mode is done ("[c10d_lab] timeout MODE exits [...] dumps N").
type LoggedEnding struct {
	Mode  string
	Exits []Exit
	Dumps int
}

var (
	endingLine = regexp.MustCompile(`^\[c10d_lab\] timeout (\S+) exits \[(.*)\] dumps (\d+)\s*$`)
	exitDict   = regexp.MustCompile(`\{[^}]*\}`)
	exitCode   = regexp.MustCompile(`'code': (-?\d+|None)`)
	exitSignal = regexp.MustCompile(`'signal': (?:'(\w+)'|None)`)
	exitKilled = regexp.MustCompile(`'killed_at_deadline': (True|False)`)
)

// ParseEndings reads the mode endings from the script's log, in order;
// other lines are skipped.
func ParseEndings(log string) ([]LoggedEnding, error) {
	var out []LoggedEnding
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := endingLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		dumps, err := strconv.Atoi(m[3])
		if err != nil {
			return nil, fmt.Errorf("c10dlab: dumps in %q: %w", sc.Text(), err)
		}
		e := LoggedEnding{Mode: m[1], Dumps: dumps}
		for _, d := range exitDict.FindAllString(m[2], -1) {
			var x Exit
			if c := exitCode.FindStringSubmatch(d); c != nil && c[1] != "None" {
				n, err := strconv.Atoi(c[1])
				if err != nil {
					return nil, fmt.Errorf("c10dlab: exit code in %q: %w", d, err)
				}
				x.Code = &n
			}
			if sg := exitSignal.FindStringSubmatch(d); sg != nil {
				x.Signal = sg[1]
			}
			if k := exitKilled.FindStringSubmatch(d); k != nil {
				x.KilledAtDeadline = k[1] == "True"
			}
			e.Exits = append(e.Exits, x)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// FirstRunEndings reads the endings of the recorded first run (FirstRunLog).
func FirstRunEndings() ([]LoggedEnding, error) {
	b, err := fs.ReadFile(recorded.Files(), FirstRunLog)
	if err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	return ParseEndings(string(b))
}
