package recorded

import "path"

// NotKept is the setting a recorded run holds, saying why, when the
// command that made it was not kept; such a run has no Command.
const NotKept = "command_not_kept"

// Command is a recorded run's command as a reader would type it to record
// such a run: without --save and its file (where the recording machine
// wrote the run), and with the files it read (--compare, --load,
// --provenance) by their base names, not the recording machine's folders.
// A run's command is the one that made it: a commlab verb, a public tool
// by its name (all_reduce_perf, nvbandwidth), or a script of this
// repository by its path from the repository's root; where the recording
// machine ran it from a folder of its own, or under a script's older
// path, Settings["recorded_with"] keeps that.
func Command(argv []string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		flag, value, hasValue := cut(a)
		switch flag {
		case "--save", "-save":
			if !hasValue {
				i++
			}
			continue
		case "--compare", "-compare", "--load", "-load", "--provenance", "-provenance", "--keep", "-keep":
			if hasValue {
				out = append(out, flag+"="+path.Base(value))
				continue
			}
			out = append(out, a)
			if i+1 < len(argv) {
				i++
				out = append(out, path.Base(argv[i]))
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// cut splits "--flag=value".
func cut(a string) (flag, value string, ok bool) {
	for i := 0; i < len(a); i++ {
		if a[i] == '=' {
			return a[:i], a[i+1:], true
		}
	}
	return a, "", false
}
