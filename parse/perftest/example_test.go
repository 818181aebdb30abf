package perftest_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/perftest"
)

// A notebook reads an ib_write_bw report printed with --report_gbits
// (linux-rdma/perftest issue #273) and compares it with the line rate.
func ExampleParse() {
	out := "                    RDMA_Write Post List BW Test\n" +
		" Dual-port       : OFF\t\tDevice         : ib0\n" +
		" Link type       : Ethernet\n" +
		"---------------------------------------------------------------------------------------\n" +
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n" +
		" 8          224958464        0.00               0.48   \t\t   7.498617\n"
	rep, err := perftest.Parse(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := rep.PeakBandwidth()
	fmt.Printf("%s on %s (%s): %d B messages, %.2f %s = %.3g B/s, %.2f Mpps\n",
		rep.Verb, rep.Device, rep.LinkType, b.Bytes, b.Average, rep.Unit, b.AverageBytesPerSecond, b.MsgRateMpps)
	// Output:
	// write on ib0 (Ethernet): 8 B messages, 0.48 Gb/sec = 6e+07 B/s, 7.50 Mpps
}
