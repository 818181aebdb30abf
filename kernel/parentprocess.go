package kernel

import (
	"log/slog"
	"os"
	"strconv"
	"syscall"
	"time"
)

// watchParentProcess returns a channel closed when the process that started the
// kernel has gone: Jupyter puts its pid in JPY_PARENT_PID (ipykernel's
// parent poller reads the same variable), so a kernel whose server was
// killed does not live on as an orphan, possibly still running a cell.
// Without the variable the channel never closes.
func watchParentProcess(log *slog.Logger) <-chan struct{} {
	gone := make(chan struct{})
	pid, err := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	if err != nil || pid <= 1 {
		return gone
	}
	// Started through a wrapper (a shell, a container entry point), the
	// direct parent is not that pid: then only its existence counts.
	direct := os.Getppid() == pid
	go func() {
		for {
			time.Sleep(time.Second)
			// Signal 0 checks existence; a reparented kernel also means
			// the parent died (its pid may be reused later).
			if err := syscall.Kill(pid, 0); err == syscall.ESRCH || (direct && os.Getppid() != pid) {
				log.Debug("kernel: parent process gone", "pid", pid)
				close(gone)
				return
			}
		}
	}()
	return gone
}
