package overlap

import "strings"

// ProcessGroupNCCL's log: the lines a live run keeps, and the settings
// read out of them.

// logMarks pick ProcessGroupNCCL's lines worth keeping from a step's
// output: the settings it read and what it said about them (the same
// choice import_overlap.sh makes for a recording).
var logMarks = []string{"environments", "options", "Eagerly", "non-blocking", "Warning", "NO watchdog"}

// keptLog returns the lines of out that ProcessGroupNCCL logged about its
// settings.
func keptLog(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "ProcessGroupNCCL") {
			continue
		}
		for _, m := range logMarks {
			if strings.Contains(line, m) {
				keep = append(keep, strings.TrimRight(line, "\r"))
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// Setting is one name and value ProcessGroupNCCL logged at creation.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// LoggedSettings reads the settings out of ProcessGroupNCCL's INFO log
// lines ("... environments: NAME: VALUE, NAME (what it is): VALUE, ..." and
// "... initialization options: ..."), in the order logged, and returns
// them with the other lines kept whole after their "] " prefix (warnings,
// "TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.").
func LoggedSettings(log string) (settings []Setting, messages []string) {
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		body := line
		if i := strings.LastIndex(line, "] "); i >= 0 {
			body = line[i+2:]
		}
		head, list, ok := strings.Cut(body, "environments: ")
		if !ok {
			head, list, ok = strings.Cut(body, "options: ")
		}
		if !ok || strings.Contains(head, ":") {
			messages = append(messages, body)
			continue
		}
		for _, kv := range strings.Split(list, ", ") {
			k, v, found := strings.Cut(kv, ": ")
			if !found {
				continue
			}
			if i := strings.Index(k, " ("); i > 0 {
				k = k[:i]
			}
			settings = append(settings, Setting{Name: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
		}
	}
	return settings, messages
}

// SettingsTable is what ProcessGroupNCCL logged under each of the core
// question's Settings (the run's logs "cq-SETTING"): a Markdown table of
// every setting logged under the default, one column per setting, in the
// order logged, and the other lines each after its setting in brackets
// ("[blocking-wait] TORCH_NCCL_BLOCKING_WAIT is enabled, ..."). The table
// is empty when the run kept no log lines.
func (r *Result) SettingsTable() (table string, messages []string) {
	logged := map[string]map[string]string{}
	var order []string
	for _, s := range Settings {
		vals, msgs := LoggedSettings(r.Run.Logs["cq-"+s.Name])
		logged[s.Name] = map[string]string{}
		for _, v := range vals {
			if _, seen := logged["default"][v.Name]; !seen && s.Name == "default" {
				order = append(order, v.Name)
			}
			logged[s.Name][v.Name] = v.Value
		}
		for _, msg := range msgs {
			messages = append(messages, "["+s.Name+"] "+msg)
		}
	}
	if len(order) == 0 {
		return "", messages
	}
	var t strings.Builder
	t.WriteString("| logged as |")
	for _, s := range Settings {
		t.WriteString(" " + s.Head + " |")
	}
	t.WriteString("\n|:---|" + strings.Repeat(":---|", len(Settings)) + "\n")
	for _, name := range order {
		t.WriteString("| `" + name + "` |")
		for _, s := range Settings {
			t.WriteString(" " + logged[s.Name][name] + " |")
		}
		t.WriteString("\n")
	}
	return t.String(), messages
}
