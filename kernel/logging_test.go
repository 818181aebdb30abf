package kernel

import (
	"context"
	"log/slog"
	"testing"
)

func TestStderrLogger(t *testing.T) {
	tests := []struct {
		level   string
		enabled slog.Level
		wantErr bool
	}{
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{"Warn", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"nope", 0, true},
	}
	for _, tc := range tests {
		logger, w, err := StderrLogger(tc.level)
		if tc.wantErr {
			if err == nil {
				t.Errorf("StderrLogger(%q) accepted", tc.level)
			}
			continue
		}
		if err != nil || w == nil {
			t.Fatalf("StderrLogger(%q): %v", tc.level, err)
		}
		ctx := context.Background()
		if !logger.Enabled(ctx, tc.enabled) || tc.enabled > slog.LevelDebug && logger.Enabled(ctx, tc.enabled-1) {
			t.Errorf("StderrLogger(%q) does not log from %v exactly", tc.level, tc.enabled)
		}
	}
}

func TestDefaultLogLevel(t *testing.T) {
	for _, tc := range []struct{ env, want string }{{"", "warn"}, {"debug", "debug"}} {
		t.Setenv("COMMLAB_LOG", tc.env)
		if got := DefaultLogLevel(); got != tc.want {
			t.Errorf("COMMLAB_LOG=%q: DefaultLogLevel() = %q, want %q", tc.env, got, tc.want)
		}
	}
}
