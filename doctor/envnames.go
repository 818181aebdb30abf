package doctor

import (
	"cmp"
	"embed"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

//go:embed envnames/*.txt
var envNamesFS embed.FS

// envList is the names one release reads (envnames/SOURCES.md).
type envList struct {
	lib     string // "nccl", "torch"
	version string // "2.28.9"
	names   map[string]bool
}

var (
	envListsOnce sync.Once
	envLists     []envList
)

// knownEnvLists reads every envnames/<lib>-<version>.txt once, ordered by
// library and version.
func knownEnvLists() []envList {
	envListsOnce.Do(func() {
		files, _ := envNamesFS.ReadDir("envnames")
		for _, f := range files {
			lib, ver, ok := strings.Cut(strings.TrimSuffix(f.Name(), ".txt"), "-")
			if !ok {
				continue
			}
			b, err := envNamesFS.ReadFile(path.Join("envnames", f.Name()))
			if err != nil {
				continue
			}
			l := envList{lib: lib, version: ver, names: map[string]bool{}}
			for _, line := range strings.Split(string(b), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					l.names[line] = true
				}
			}
			envLists = append(envLists, l)
		}
		slices.SortFunc(envLists, func(a, b envList) int {
			versions, _ := compareVersions(a.version, b.version)
			return cmp.Or(cmp.Compare(a.lib, b.lib), versions)
		})
	})
	return envLists
}

// listFor picks the list of lib's release that matches version (same
// major and minor); ok is false when none does.
func listFor(lib, version string) (envList, bool) {
	want := versionNumbers(version)
	if len(want) < 2 {
		return envList{}, false
	}
	for _, l := range knownEnvLists() {
		got := versionNumbers(l.version)
		if l.lib == lib && len(got) >= 2 && got[0] == want[0] && got[1] == want[1] {
			return l, true
		}
	}
	return envList{}, false
}

// KnownEnv returns the environment variable names the given NCCL and
// PyTorch read (envnames/SOURCES.md: NCCL 2.4 to 2.30 from its source at
// each release tag; PyTorch 2.4 and 2.11). A version without a list, or
// none given, counts every release of that library we know; nil means no
// list at all.
func KnownEnv(ncclVersion, torchVersion string) map[string]bool {
	known := map[string]bool{}
	for _, lib := range []struct{ name, version string }{{"nccl", ncclVersion}, {"torch", torchVersion}} {
		if l, ok := listFor(lib.name, lib.version); ok {
			for n := range l.names {
				known[n] = true
			}
			continue
		}
		for _, l := range knownEnvLists() {
			if l.lib == lib.name {
				for n := range l.names {
					known[n] = true
				}
			}
		}
	}
	if len(known) == 0 {
		return nil
	}
	return known
}

// envReaders says which releases of lib read name: "2.12.12 to 2.30.7",
// or "" when none we know does.
func envReaders(lib, name string) string {
	var vs []string
	for _, l := range knownEnvLists() {
		if l.lib == lib && l.names[name] {
			vs = append(vs, l.version)
		}
	}
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return vs[0] + " to " + vs[len(vs)-1]
}

// envLibOf is the library whose names a variable would be among.
func envLibOf(name string) string {
	switch {
	case strings.HasPrefix(name, "NCCL_"):
		return "nccl"
	case strings.HasPrefix(name, "TORCH_NCCL_"), strings.HasPrefix(name, "TORCH_FR_"):
		return "torch"
	}
	return ""
}

// allEnvNames are the names any release of lib reads.
func allEnvNames(lib string) []string {
	seen := map[string]bool{}
	for _, l := range knownEnvLists() {
		if l.lib == lib {
			for n := range l.names {
				seen[n] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// closestEnvName is the known name nearest to a misspelt one, when it is
// near enough to be the likely intent: at most two edits, or three for
// long names (a letter left out, doubled, swapped or mistyped).
func closestEnvName(lib, name string) (string, int) {
	best, bestD := "", 1<<30
	for _, n := range allEnvNames(lib) {
		d := editDistance(name, n)
		if d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	limit := 2
	if len(name) >= 16 {
		limit = 3
	}
	if best == "" || bestD > limit {
		return "", 0
	}
	return best, bestD
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
