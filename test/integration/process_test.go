package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// workerProc is one running `worker run` process.
type workerProc struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	metrics string // http://host:port of /metrics, /healthz, /readyz
	exited  chan struct{}
	err     error // the process's exit status, set before exited closes

	mu   sync.Mutex
	tail []string // last log lines, for failure reports
}

// startWorker starts the worker binary with env (added to a HYGIENE_-free
// copy of the test's environment) and waits until it serves metrics.
func startWorker(t *testing.T, name string, env []string) *workerProc {
	t.Helper()
	return startWorkerUntil(t, name, env, "worker started")
}

// startWorkerUntil is startWorker waiting for the log line whose message is
// msg and which names the metrics listener (as "worker started" does in
// its metrics member, and "probes and metrics listening", logged before the
// worker contacts a broker, in its addr member).
func startWorkerUntil(t *testing.T, name string, env []string, msg string) *workerProc {
	t.Helper()
	cmd := exec.Command(workerBin, "run")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HYGIENE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting worker %s: %v", name, err)
	}
	w := &workerProc{t: t, name: name, cmd: cmd, exited: make(chan struct{})}
	started := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			w.mu.Lock()
			w.tail = append(w.tail, line)
			if len(w.tail) > 40 {
				w.tail = w.tail[1:]
			}
			w.mu.Unlock()
			var entry struct {
				Msg     string `json:"msg"`
				Metrics string `json:"metrics"`
				Addr    string `json:"addr"`
			}
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == msg {
				if entry.Metrics == "" {
					entry.Metrics = "http://" + entry.Addr
				}
				started <- strings.TrimSuffix(entry.Metrics, "/metrics")
			}
		}
	}()
	go func() {
		<-scanned
		w.err = cmd.Wait()
		logFile.Close()
		close(w.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-w.exited:
		default:
			_ = cmd.Process.Kill()
			<-w.exited
		}
		if t.Failed() {
			t.Logf("last log lines of worker %s:\n%s", name, w.logTail())
		}
	})
	select {
	case w.metrics = <-started:
		return w
	case <-w.exited:
		t.Fatalf("worker %s exited before it started (%v):\n%s", name, w.err, w.logTail())
	case <-time.After(90 * time.Second):
		t.Fatalf("worker %s did not start within 90s:\n%s", name, w.logTail())
	}
	return nil
}

func (w *workerProc) logTail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.tail, "\n")
}

// kill ends the worker with SIGKILL, the way a crash would.
func (w *workerProc) kill() {
	w.t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.exited
}

// stop sends SIGTERM and fails the test unless the worker exits 0 within
// its shutdown deadline.
func (w *workerProc) stop() {
	w.t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(40 * time.Second):
		w.t.Fatalf("worker %s did not exit within 40s of SIGTERM:\n%s", w.name, w.logTail())
	}
	if w.err != nil {
		w.t.Fatalf("worker %s exited with %v after SIGTERM:\n%s", w.name, w.err, w.logTail())
	}
}

// alive reports whether the process is still running.
func (w *workerProc) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}
