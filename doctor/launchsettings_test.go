package doctor

import (
	"strings"
	"testing"
)

func TestLaunchSettingsPlan(t *testing.T) {
	for _, tt := range []struct {
		name    string
		s       LaunchSettings
		wantErr string
		want    []string // lines of the plan's text
	}{
		{name: "nodes not a number", s: LaunchSettings{Launcher: "mpirun", Nodes: "a", Out: "/shared"}, wantErr: `--nodes "a": with --launcher, the number of nodes`},
		{name: "nodes disagree", s: LaunchSettings{Launcher: "mpirun", Nodes: "2", NumNodes: 3, Out: "/shared"}, wantErr: "--nodes 2 and --num-nodes 3 disagree"},
		{name: "hostfile missing", s: LaunchSettings{Launcher: "mpirun", Hostfile: "/no/such/hostfile", Out: "/shared"}, wantErr: "no such file"},
		{name: "json follow-up", s: LaunchSettings{Launcher: "srun", Nodes: "2", PerNode: 8, Out: "/shared", Binary: "/bin/commlab", JSON: true},
			want: []string{"--json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := tt.s.Plan()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			plan.WriteText(&b)
			last := b.String()[strings.LastIndex(strings.TrimSuffix(b.String(), "\n"), "\n")+1:]
			if last != ShellLine(plan.FollowUp)+"\n" {
				t.Errorf("the follow-up is not last:\n%s", b.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(last, w) {
					t.Errorf("follow-up %q lacks %q", last, w)
				}
			}
		})
	}
}
