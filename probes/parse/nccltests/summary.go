package nccltests

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/probes/parse"
)

// WriteSummary writes what a person reads first about the runs in nccl-tests
// output: a line naming the input (file), then per run its benchmark,
// devices and bus-bandwidth factor, the table of rows, and the footer's
// average or that the output was cut short.
func (res *Result) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		fmt.Fprintf(w, "%s: nccl-tests %s output, %d run(s)\n", file, res.Format, len(res.Runs))
		for _, run := range res.Runs {
			name := run.Program
			if name == "" {
				name = "(benchmark not named in the output)"
			}
			var about []string
			if run.TestsVersion != "" {
				about = append(about, "nccl-tests "+run.TestsVersion)
			}
			if v := run.LibraryVersion(); v != "" {
				about = append(about, "NCCL "+v)
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
			if len(run.Devices) > 0 {
				fmt.Fprintf(w, "devices: %s", run.Devices[0].Name)
				if len(run.Devices) > 1 {
					fmt.Fprintf(w, " ... %s", run.Devices[len(run.Devices)-1].Name)
				}
				fmt.Fprintln(w)
			}
			if f, err := run.BusBWFactor(); err == nil {
				fmt.Fprintf(w, "busbw = algbw x %.4g (%s on %d ranks)\n", f, run.Collective, run.NRanks())
			}
			if len(run.Rows) == 0 {
				fmt.Fprintln(w, "no rows")
				continue
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "size\ttype\top\ttime us\talgbw GB/s\tbusbw GB/s\tin-place us\tin-place busbw\twrong\t")
			for _, r := range run.Rows {
				wrong := fmt.Sprintf("%g", r.OutOfPlace.Wrong+r.InPlace.Wrong)
				if r.OutOfPlace.WrongNA {
					wrong = "N/A"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", parse.FormatSize(r.SizeBytes), r.Type, r.RedOp,
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
