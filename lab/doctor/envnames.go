package doctor

import (
	"embed"
	"strings"
)

//go:embed envnames/*.txt
var envNamesFS embed.FS

// KnownEnv returns the environment variable names the given NCCL and
// PyTorch read, from the lists recorded on the lab's machine
// (envnames/SOURCES.md): NCCL 2.28.x and PyTorch 2.11.x. A version with no
// list adds nothing; nil means neither is known, and the lint then does
// not judge names at all.
func KnownEnv(ncclVersion, torchVersion string) map[string]bool {
	known := map[string]bool{}
	read := func(file string) {
		b, err := envNamesFS.ReadFile("envnames/" + file)
		if err != nil {
			return
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				known[l] = true
			}
		}
	}
	if strings.HasPrefix(ncclVersion, "2.28.") {
		read("nccl-2.28.9.txt")
	}
	if strings.HasPrefix(torchVersion, "2.11.") {
		read("torch-2.11.0.txt")
	}
	if len(known) == 0 {
		return nil
	}
	return known
}
