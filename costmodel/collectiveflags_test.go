package costmodel

import (
	"errors"
	"strings"
	"testing"
)

func TestFlagErrorTextNamesFlags(t *testing.T) {
	tests := []struct {
		q    CollectiveQuery
		want string
	}{
		{CollectiveQuery{Collective: "all_reduce", Size: "abc"}, `--size: units: bad size "abc"`},
		{CollectiveQuery{Collective: "all_reduce", Size: "1M", Nodes: 0, Given: []Option{OptionNodes}}, "--nodes 0: need at least 1 node"},
	}
	for _, tc := range tests {
		_, err := tc.q.Plan()
		if err == nil || !strings.HasPrefix(FlagErrorText(err), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.q, err, tc.want)
		}
	}
	if FlagErrorText(errors.New("plain")) != "plain" {
		t.Error("an error of no input")
	}
	for o, f := range QueryFlags {
		if got, ok := OptionOfFlag(strings.TrimLeft(f, "-")); !ok || got != o {
			t.Errorf("OptionOfFlag(%s) = %v, %v", f, got, ok)
		}
	}
	presets, links := UsageLines()
	if len(presets) != len(Nodes()) || len(links) == 0 {
		t.Errorf("UsageLines: %d presets, %d links", len(presets), len(links))
	}
}
