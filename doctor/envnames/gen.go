//go:build ignore

// gen writes nccl-<version>.txt: the NCCL_* environment variables each NCCL
// release reads, from its source at the release tag. Run from doctor/envnames
// with a clone of github.com/NVIDIA/nccl (tags included):
//
//	go run gen.go -nccl /path/to/nccl
//
// For every minor release from 2.4 on it takes the newest tag (v2.28.9-1
// for 2.28) and collects, from src/, the names NCCL_PARAM declares
// (NCCL_PARAM(Name, "IB_HCA", ...) reads "NCCL_IB_HCA": src/include/param.h)
// and every "NCCL_..." string literal (ncclGetEnv("NCCL_ALGO"), getenv).
// A literal that merely looks like a name only makes the lint miss a typo;
// it never flags a real variable.
package main

import (
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	reTag     = regexp.MustCompile(`^v2\.(\d+)\.(\d+)-(\d+)$`)
	reParam   = regexp.MustCompile(`NCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"`)
	reLiteral = regexp.MustCompile(`"(NCCL_[A-Z0-9_]*[A-Z0-9])"`)
)

func git(dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func main() {
	repo := flag.String("nccl", "", "a clone of github.com/NVIDIA/nccl with its tags")
	from := flag.Int("from", 4, "first minor release (2.N)")
	flag.Parse()
	if *repo == "" {
		log.Fatal("-nccl DIR is required")
	}
	// newest patch and build per minor
	type ver struct{ minor, patch, build int }
	best := map[int]ver{}
	tags := map[int]string{}
	for _, t := range strings.Fields(git(*repo, "tag")) {
		m := reTag.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		v := ver{}
		v.minor, _ = strconv.Atoi(m[1])
		v.patch, _ = strconv.Atoi(m[2])
		v.build, _ = strconv.Atoi(m[3])
		if v.minor < *from {
			continue
		}
		if b, ok := best[v.minor]; !ok || v.patch > b.patch || v.patch == b.patch && v.build > b.build {
			best[v.minor], tags[v.minor] = v, t
		}
	}
	minors := slices.Sorted(maps.Keys(best))
	versions := map[int]string{}
	for m, b := range best {
		versions[m] = fmt.Sprintf("2.%d.%d", b.minor, b.patch)
	}
	writeParams(*repo, minors, tags, versions)
	for _, m := range minors {
		tag := tags[m]
		names := map[string]bool{}
		files := strings.Fields(git(*repo, "ls-tree", "-r", "--name-only", tag, "src"))
		for _, f := range files {
			if !strings.HasSuffix(f, ".cc") && !strings.HasSuffix(f, ".cu") && !strings.HasSuffix(f, ".h") && !strings.HasSuffix(f, ".cpp") && !strings.HasSuffix(f, ".hpp") {
				continue
			}
			src := git(*repo, "show", tag+":"+f)
			for _, p := range reParam.FindAllStringSubmatch(src, -1) {
				names["NCCL_"+p[1]] = true
			}
			for _, l := range reLiteral.FindAllStringSubmatch(src, -1) {
				names[l[1]] = true
			}
		}
		list := slices.Sorted(maps.Keys(names))
		b := best[m]
		name := fmt.Sprintf("nccl-2.%d.%d.txt", b.minor, b.patch)
		body := fmt.Sprintf("# NCCL_* names in NVIDIA/nccl %s src/ (doctor/envnames/gen.go)\n%s\n", tag, strings.Join(list, "\n"))
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d names\n", name, len(list))
	}
}

// writeParams writes nccl-int-params.tsv: every name NCCL_PARAM declares
// (an integer NCCL reads with strtoll(str, nullptr, 0) in
// src/misc/param.cc, src/include/param.h before 2.12), with the first and
// last minor release that declares it and its default as written in the
// source at the last one.
func writeParams(repo string, minors []int, tags, versions map[int]string) {
	type span struct{ first, last, def string }
	params := map[string]*span{}
	reDecl := regexp.MustCompile(`NCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"\s*,\s*([^;\n]*)\)`)
	for _, m := range minors {
		tag := tags[m]
		ver := versions[m]
		out := git(repo, "grep", "-h", "-E", `NCCL_PARAM\(`, tag, "--", "src")
		for _, d := range reDecl.FindAllStringSubmatch(out, -1) {
			name := "NCCL_" + d[1]
			s, ok := params[name]
			if !ok {
				s = &span{first: ver}
				params[name] = s
			}
			s.last, s.def = ver, strings.TrimSpace(d[2])
		}
	}
	names := slices.Sorted(maps.Keys(params))
	var b strings.Builder
	b.WriteString("# integer parameters: NCCL_PARAM declarations in NVIDIA/nccl src/ (doctor/envnames/gen.go)\n# name\tfirst\tlast\tdefault at last\n")
	for _, n := range names {
		s := params[n]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", n, s.first, s.last, s.def)
	}
	if err := os.WriteFile("nccl-int-params.tsv", []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("nccl-int-params.tsv: %d names\n", len(names))
}
