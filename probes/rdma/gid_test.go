package rdma

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gidEntry is one GID table entry of a fake sysfs port: its address as
// sysfs prints it and its gid_attrs/types line; an empty gid leaves the
// entry's files out, as a container does for entries it does not map.
type gidEntry struct{ gid, typ string }

// TestChooseGIDIndex compiles rdma_write.c's own GID choice (its
// read_line, gid_rank and choose_gid_index, quoted through Listing, so no
// libibverbs is needed) with a small main, and runs it against fake sysfs
// trees: RoCE v2 with an IPv4 address must win, as with NCCL's default
// NCCL_IB_GID_INDEX=-1 and perftest without -x.
func TestChooseGIDIndex(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	var code []string
	for _, name := range []string{"read_line", "gid_rank", "choose_gid_index"} {
		c, err := Listing(name)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, c)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "choose.c")
	harness := "#include <arpa/inet.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n" +
		strings.Join(code, "\n\n") +
		"\n\nint main(int argc, char **argv) {\n\tprintf(\"%d\\n\", choose_gid_index(argv[1], argv[2], atoi(argv[3]), atoi(argv[4])));\n\treturn 0;\n}\n"
	if err := os.WriteFile(src, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "choose")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cc, "-Wall", "-Werror", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	const (
		zero   = "0000:0000:0000:0000:0000:0000:0000:0000"
		local  = "fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8"
		ipv4   = "0000:0000:0000:0000:0000:ffff:ac13:003c" // 172.19.0.60
		ipv6   = "2001:0db8:0000:0000:0000:0000:0000:0001"
		v1, v2 = "IB/RoCE v1", "RoCE v2"
	)
	for _, tt := range []struct {
		name  string
		table []gidEntry
		want  int
	}{
		// The show_gids table of the chapter's parameter cell, two empty entries after it.
		{"ConnectX-6 with one IPv4 address", []gidEntry{{local, v1}, {local, v2}, {local, v1}, {local, v2}, {ipv4, v1}, {ipv4, v2}, {zero, v1}, {zero, v1}}, 5},
		// A macvlan pod (NVIDIA/nccl#1573): entries 0-3 not mapped into the container.
		{"container maps only some entries", []gidEntry{{}, {}, {}, {}, {local, v1}, {local, v2}, {ipv4, v1}, {ipv4, v2}}, 7},
		{"no IPv4 address: RoCE v2 over v1", []gidEntry{{local, v1}, {local, v2}}, 1},
		{"IPv4 on RoCE v1 before IPv6 on RoCE v2", []gidEntry{{local, v1}, {ipv6, v2}, {ipv4, v1}}, 2},
		{"no gid_attrs types: the first IPv4 entry", []gidEntry{{local, ""}, {ipv4, ""}, {ipv4, ""}}, 1},
		{"nothing readable: index 0", []gidEntry{{}, {}}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			port := filepath.Join(root, "class", "infiniband", "mlx5_0", "ports", "1")
			for _, d := range []string{"gids", filepath.Join("gid_attrs", "types")} {
				if err := os.MkdirAll(filepath.Join(port, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for i, e := range tt.table {
				if e.gid != "" {
					writeFile(t, filepath.Join(port, "gids", strconv.Itoa(i)), e.gid)
				}
				if e.gid != "" && e.typ != "" {
					writeFile(t, filepath.Join(port, "gid_attrs", "types", strconv.Itoa(i)), e.typ)
				}
			}
			out, err := exec.CommandContext(ctx, bin, root, "mlx5_0", "1", strconv.Itoa(len(tt.table))).Output()
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got != tt.want {
				t.Errorf("chose GID index %s, want %d", strings.TrimSpace(string(out)), tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, line string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
