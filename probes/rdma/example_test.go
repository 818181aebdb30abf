package rdma_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/rdma"
)

// Parse reads what rdma_write's client printed; each result line becomes
// one sample: the time of one write and its bandwidth in GB/s.
func ExampleParse() {
	out, err := rdma.Parse(`info device mlx5_0
info link_layer InfiniBand
info memory host
# result size_bytes iters usec gbps (usec: all iters writes; gbps: GB/s, 1e9 bytes/s)
result 65536 1000 2800.000 23.406
result 1048576 1000 42500.000 24.672
done
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Info["device"], out.Info["link_layer"], out.Done)
	for _, r := range out.Results {
		s := r.Sample(-1, -1, "host")
		fmt.Printf("%s %d bytes: %.2f us per write, %.2f GB/s\n", s.Op, s.Bytes, s.MedianUS, s.AlgBW)
	}
	// Output:
	// mlx5_0 InfiniBand true
	// rdma_write 65536 bytes: 2.80 us per write, 23.41 GB/s
	// rdma_write 1048576 bytes: 42.50 us per write, 24.67 GB/s
}

// ServerArgs and ClientArgs are the two sides' perftest flags: the same
// test settings on both, the client naming the server last.
func ExamplePerftestConfig_ClientArgs() {
	cfg := rdma.PerftestConfig{Device: "mlx5_0", GIDIndex: 3, UseCUDA: 0, Iters: 1000}
	fmt.Println("ib_write_bw", strings.Join(cfg.ServerArgs(65536, 18515), " "))
	fmt.Println("ib_write_bw", strings.Join(cfg.ClientArgs("node-a", 65536, 18515), " "))
	// Output:
	// ib_write_bw -d mlx5_0 -x 3 -s 65536 -n 1000 --use_cuda=0 -p 18515 -F
	// ib_write_bw -d mlx5_0 -x 3 -s 65536 -n 1000 --use_cuda=0 -p 18515 -F node-a
}

// Listing quotes rdma_write.c as it is built: here the connection info the
// two sides exchange before their queue pairs can talk.
func ExampleListing() {
	code, err := rdma.Listing("conn_info")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(code)
	// Output:
	// /* conn_info is what each side tells the other. */
	// struct conn_info {
	// 	uint32_t qpn, psn, rkey;
	// 	uint16_t lid;
	// 	uint8_t gid[16];
	// 	uint64_t addr, len;
	// };
}

// ListingBlanked leaves one initializer of the program for a learner to
// write: the remote half of write_burst's RDMA WRITE.
func ExampleListingBlanked() {
	code, err := rdma.ListingBlanked("write_burst", ".wr.rdma")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(code, ".wr.rdma = { /* ??? */ }"), strings.Contains(code, "rkey"))
	// Output:
	// true false
}
