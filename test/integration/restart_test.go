package integration

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBrokerRestart kills the real Kafka broker (SIGKILL) mid-stream and
// starts it again on the same data: the worker recovers and no job is left
// without an output. The
// broker is a private one (scripts/kafka.sh run from a copy, with its own
// state directory and ports), so restarting it never disturbs the shared
// broker other packages test against at the same time.
func TestBrokerRestart(t *testing.T) {
	realKafka(t) // runs where real Kafka is available (and must, under CI)
	kb := startPrivateKafka(t)
	b := broker{name: "kafka-private", addr: kb.addr}
	tp := newTopics(t, b)
	out := collect(t, b, tp)
	w := startWorker(t, "worker", workerEnv(b, tp))
	stream := newProducer(t, b, tp.jobs).stream(t, "restart", 400, 4, 100*time.Millisecond)

	time.Sleep(3 * time.Second)
	start := time.Now()
	kb.kill(t)
	t.Log("broker killed")
	time.Sleep(2 * time.Second)
	kb.run(t, "start")
	t.Logf("broker started again, %s after the kill", time.Since(start).Round(time.Millisecond))

	ids := <-stream
	out.waitAll(t, ids, 3*time.Minute)
	if !w.alive() {
		t.Fatal("the worker exited during the broker restart")
	}
	w.stop()
	t.Logf("%d jobs across a broker restart; %d duplicate outputs", len(ids), out.duplicates(ids))
}

// privateKafka is a copy of scripts/kafka.sh with its own state and ports.
type privateKafka struct {
	root   string
	script string
	env    []string
	addr   string
}

func startPrivateKafka(t *testing.T) *privateKafka {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	copyTree(t, filepath.Join(repo, "scripts"), filepath.Join(root, "scripts"))
	// Reuse the jars scripts/kafka.sh resolved for the shared broker (with
	// their stamp), so the private one starts without Maven.
	if _, err := os.Stat(filepath.Join(repo, ".kafka", "lib", ".pom.sha256")); err == nil {
		copyTree(t, filepath.Join(repo, ".kafka", "lib"), filepath.Join(root, ".kafka", "lib"))
	}
	port, cport := freePort(t), freePort(t)
	kb := &privateKafka{
		root:   root,
		script: filepath.Join(root, "scripts", "kafka.sh"),
		env: append(os.Environ(), "KAFKA_SH_PORT="+strconv.Itoa(port),
			"KAFKA_SH_CONTROLLER_PORT="+strconv.Itoa(cport), "KAFKA_SH_HEAP=256m"),
	}
	kb.addr = kb.run(t, "start")
	t.Cleanup(func() { _, _ = kb.exec("stop") })
	return kb
}

// kill ends the broker with SIGKILL (kafka.sh keeps its pid in .kafka/kafka.pid).
func (k *privateKafka) kill(t *testing.T) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(k.root, ".kafka", "kafka.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil {
		t.Fatalf("the private broker's pid file holds %q", text)
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("killing the private broker (pid %d): %v", pid, err)
	}
	for i := 0; i < 100 && proc.Signal(syscall.Signal(0)) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// run runs kafka.sh with one command and returns its stdout, failing t on error.
func (k *privateKafka) run(t *testing.T, command string) string {
	t.Helper()
	out, err := k.exec(command)
	if err != nil {
		t.Fatalf("scripts/kafka.sh %s (private broker): %v", command, err)
	}
	return out
}

func (k *privateKafka) exec(command string) (string, error) {
	cmd := exec.Command(k.script, command)
	cmd.Env = k.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// copyTree copies the regular files under src to dst, keeping modes.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}
