package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// workerProc is a running `worker run` subprocess.
type workerProc struct {
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
	stopped bool
}

// startWorker starts the worker binary with env; its log goes to a file in
// env.dir.
func startWorker(ctx context.Context, env *e2eEnv, noop bool, vars []string) (*workerProc, error) {
	args := []string{"run"}
	if noop {
		args = append(args, "--noop")
	}
	w := &workerProc{logPath: filepath.Join(env.dir, fmt.Sprintf("worker-%d.log", env.runs)), exited: make(chan struct{})}
	logFile, err := os.Create(w.logPath)
	if err != nil {
		return nil, fmt.Errorf("creating the worker log: %w", err)
	}
	w.cmd = exec.Command(env.worker, args...)
	w.cmd.Env, w.cmd.Stdout, w.cmd.Stderr = vars, logFile, logFile
	if err := w.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting the worker: %w", err)
	}
	go func() {
		w.waitErr = w.cmd.Wait()
		logFile.Close()
		close(w.exited)
	}()
	return w, nil
}

// pid is the worker's process id.
func (w *workerProc) pid() int { return w.cmd.Process.Pid }

// waitReady polls /readyz until the worker holds its partitions.
func (w *workerProc) waitReady(ctx context.Context, addr string) error {
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-w.exited:
			return fmt.Errorf("the worker exited before it was ready: %v (log: %s)", w.waitErr, w.logTail())
		case <-ctx.Done():
			return fmt.Errorf("the worker was not ready at http://%s/readyz in time (log: %s)", addr, w.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits for a clean exit (SIGKILL after 30s). The
// second call does nothing.
func (w *workerProc) stop() error {
	if w.stopped {
		return nil
	}
	w.stopped = true
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping the worker: %w", err)
	}
	select {
	case <-w.exited:
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.exited
		return fmt.Errorf("the worker did not stop within 30s of SIGTERM (log: %s)", w.logTail())
	}
	if w.waitErr != nil {
		return fmt.Errorf("the worker exited with %v (log: %s)", w.waitErr, w.logTail())
	}
	return nil
}

// logTail is the end of the worker's log, for error messages.
func (w *workerProc) logTail() string {
	data, err := os.ReadFile(w.logPath)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	if s == "" {
		return "empty"
	}
	return s
}
