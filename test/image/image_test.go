package image

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// root is the repository root, from this package's directory.
const root = "../.."

// The image's contract, the same as the Dockerfile's and the Helm chart's.
const (
	imageUser       = "65532:65532"
	imageEntrypoint = "/usr/local/bin/worker"
	imageConfig     = "/etc/hygiene/worker.yaml"
	// loader is the dynamic loader; `loader --list BIN` is ldd without a
	// shell, which the trimmed variant does not have.
	loader = "/lib64/ld-linux-x86-64.so.2"
	// libvips is the library the worker loads at its first image.
	libvips = "/usr/lib/x86_64-linux-gnu/libvips.so.42"
)

func TestImage(t *testing.T) {
	env := podmanEnv(t)
	for _, archive := range archives(t, env) {
		t.Run(strings.TrimSuffix(filepath.Base(archive), ".oci.tar"), func(t *testing.T) {
			img := load(t, env, archive)
			t.Run("config", img.testConfig)
			t.Run("libraries", img.testLibraries)
			t.Run("version", img.testVersion)
			t.Run("config validate", img.testConfigValidate)
			t.Run("sanitize", img.testSanitize)
			t.Run("run --produce", img.testProduce)
			t.Run("run read-only as 65532", img.testServe)
			t.Run("govulncheck binary", img.testVulncheck)
		})
	}
}

// podmanEnv is the environment of every podman command: CONTAINERS_CONF
// from the environment, else the one scripts/image.sh writes. A podman
// that is missing or cannot run fails the test under CI=true and skips it
// otherwise, with the reason either way.
func podmanEnv(t *testing.T) []string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		reason := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; with CI=true the image must be tested (scripts/deps.sh image installs podman)", reason)
		}
		t.Skipf("%s; install podman (scripts/deps.sh image) to test the container image", reason)
	}
	if _, err := exec.LookPath("podman"); err != nil {
		unavailable("podman is not installed: %v", err)
	}
	env := os.Environ()
	if os.Getenv("CONTAINERS_CONF") == "" {
		conf, err := exec.Command(filepath.Join(root, "scripts/image.sh"), "conf").Output()
		if err != nil {
			t.Fatalf("scripts/image.sh conf: %v", err)
		}
		env = append(env, "CONTAINERS_CONF="+strings.TrimSpace(string(conf)))
	}
	if out, err := command(env, "podman", "info", "--format", "{{.Host.OCIRuntime.Name}}").CombinedOutput(); err != nil {
		unavailable("podman cannot run here: podman info: %v: %s", err, bytes.TrimSpace(out))
	}
	return env
}

// archives are WORKER_IMAGE_ARCHIVES, or the two variants built now.
func archives(t *testing.T, env []string) []string {
	t.Helper()
	if v := os.Getenv("WORKER_IMAGE_ARCHIVES"); v != "" {
		return filepath.SplitList(v)
	}
	var built []string
	for _, args := range [][]string{{"build"}, {"build", "--trimmed"}} {
		cmd := command(env, filepath.Join(root, "scripts/image.sh"), args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("scripts/image.sh %s: %v", strings.Join(args, " "), err)
		}
		built = append(built, strings.TrimSpace(string(out)))
	}
	return built
}

// image is one loaded archive, and its binary copied out to run on the host.
type image struct {
	env     []string
	archive string
	id      string
	host    string // the image's worker binary, on the host
	config  []byte // the image's /etc/hygiene/worker.yaml
}

// load loads the archive into podman's storage and copies the binary and
// the configuration out of it.
func load(t *testing.T, env []string, archive string) *image {
	t.Helper()
	out := mustRun(t, command(env, "podman", "load", "--quiet", "--input", archive))
	// "Loaded image: NAME" (or "Loaded image(s): NAME,NAME").
	_, names, ok := strings.Cut(strings.TrimSpace(out), ": ")
	if !ok {
		t.Fatalf("podman load %s printed %q", archive, out)
	}
	name, _, _ := strings.Cut(names, ",")
	img := &image{env: env, archive: archive}
	img.id = strings.TrimSpace(mustRun(t, command(env, "podman", "image", "inspect", "--format", "{{.Id}}", name)))
	dir := t.TempDir()
	ctr := strings.TrimSpace(mustRun(t, command(env, "podman", "create", img.id)))
	defer func() { _ = command(env, "podman", "rm", "--force", ctr).Run() }()
	img.host = filepath.Join(dir, "worker")
	mustRun(t, command(env, "podman", "cp", ctr+":"+imageEntrypoint, img.host))
	mustRun(t, command(env, "podman", "cp", ctr+":"+imageConfig, filepath.Join(dir, "worker.yaml")))
	var err error
	if img.config, err = os.ReadFile(filepath.Join(dir, "worker.yaml")); err != nil {
		t.Fatal(err)
	}
	return img
}

// testConfig reads the archive's OCI configuration back with skopeo.
func (img *image) testConfig(t *testing.T) {
	out := mustRun(t, command(img.env, "skopeo", "inspect", "--config", "oci-archive:"+img.archive))
	var cfg struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
		Config       struct {
			User         string              `json:"User"`
			Env          []string            `json:"Env"`
			Entrypoint   []string            `json:"Entrypoint"`
			Cmd          []string            `json:"Cmd"`
			ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatalf("skopeo inspect --config: %v: %s", err, out)
	}
	c := cfg.Config
	if cfg.OS != "linux" || cfg.Architecture != "amd64" {
		t.Errorf("platform %s/%s, want linux/amd64", cfg.OS, cfg.Architecture)
	}
	if c.User != imageUser {
		t.Errorf("User %q, want %q", c.User, imageUser)
	}
	if !slices.Contains(c.Env, "MALLOC_ARENA_MAX=2") {
		t.Errorf("Env %q lacks MALLOC_ARENA_MAX=2", c.Env)
	}
	if !slices.Equal(c.Entrypoint, []string{imageEntrypoint}) {
		t.Errorf("Entrypoint %q, want [%s]", c.Entrypoint, imageEntrypoint)
	}
	if want := []string{"run", "--config", imageConfig}; !slices.Equal(c.Cmd, want) {
		t.Errorf("Cmd %q, want %q", c.Cmd, want)
	}
	if _, ok := c.ExposedPorts["9464/tcp"]; !ok {
		t.Errorf("ExposedPorts %v lacks 9464/tcp (metrics)", c.ExposedPorts)
	}
	want, err := os.ReadFile(filepath.Join(root, "configs/worker.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.config, want) {
		t.Errorf("%s in the image differs from configs/worker.yaml", imageConfig)
	}
}

// testLibraries: the loader resolves every library of the binary, which
// does not link libvips, and every library of libvips, which the binary
// loads at its first image (testSanitize's examples include such an
// image).
func (img *image) testLibraries(t *testing.T) {
	out := mustRun(t, img.container(nil, "--entrypoint", loader, img.id, "--list", imageEntrypoint))
	if strings.Contains(out, "not found") {
		t.Errorf("libraries missing in the image:\n%s", out)
	}
	if strings.Contains(out, "libvips.so.42") {
		t.Errorf("the binary links libvips, which it should load at its first image (internal/images/lazyvips):\n%s", out)
	}
	out = mustRun(t, img.container(nil, "--entrypoint", loader, img.id, "--list", libvips))
	if strings.Contains(out, "not found") || !strings.Contains(out, "libglib-2.0.so.0") {
		t.Errorf("libvips' libraries missing in the image:\n%s", out)
	}
}

func (img *image) testVersion(t *testing.T) {
	got := mustRun(t, img.container(nil, img.id, "version"))
	want := mustRun(t, img.onHost(nil, "version"))
	if got != want || !strings.HasPrefix(got, "hygiene worker ") {
		t.Errorf("version in the image %q, on the host %q", got, want)
	}
}

func (img *image) testConfigValidate(t *testing.T) {
	want := imageConfig + ": valid\n"
	if got := mustRun(t, img.container(nil, img.id, "config", "validate", imageConfig)); got != want {
		t.Errorf("config validate %s: %q, want %q", imageConfig, got, want)
	}
}

// testSanitize: every example, sanitized in the image, is byte-identical
// to the same binary's output on the host, with the same exit status.
func (img *image) testSanitize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "examples/*.json*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			input, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, gotCode := output(t, img.container(input, "-i", img.id, "sanitize", "-"))
			want, wantCode := output(t, img.onHost(input, "sanitize", "-"))
			if gotCode != wantCode || !bytes.Equal(got, want) {
				t.Errorf("in the image: exit %d, %d bytes; on the host: exit %d, %d bytes; the outputs differ",
					gotCode, len(got), wantCode, len(want))
			}
			if wantCode == 0 && len(want) == 0 {
				t.Error("the host printed no payload")
			}
		})
	}
}

// testProduce: the demo, `run --produce examples`, runs to completion on
// the container's own loopback (--network none: the embedded broker's
// default port cannot clash with anything) and prints what the host prints.
func (img *image) testProduce(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	got := mustRun(t, img.container(nil, "--volume", examples+":/examples:ro", img.id,
		"run", "--produce", "/examples", "--config", imageConfig))
	want := mustRun(t, img.onHost(nil, "run", "--produce", examples, "--config", filepath.Join(root, "configs/worker.yaml"))) // ports from onHost
	if sortedLines(got) != sortedLines(want) {
		t.Errorf("run --produce in the image printed\n%s\non the host\n%s", got, want)
	}
	if n := strings.Count(got, " ready "); n == 0 {
		t.Errorf("no job came back ready:\n%s", got)
	}
}

// testServe runs the image's default command as the chart does (read-only
// root, tmpfs /tmp) on the host network, with the embedded broker and the
// metrics on ports the kernel picks (the worker logs them). It checks the process's uid and root mount, sends
// one job from the host and compares the ready payload with the host's
// sanitize, then stops the container with SIGTERM.
func (img *image) testServe(t *testing.T) {
	name := "hygiene-image-test-" + randomHex()
	mustRun(t, command(img.env, "podman", "run", "--detach", "--name", name, "--network", "host",
		"--read-only", "--tmpfs", "/tmp",
		"--env", "HYGIENE_KAFKA_EMBEDDED_LISTEN=127.0.0.1:0", "--env", "HYGIENE_METRICS_LISTEN=127.0.0.1:0", img.id))
	t.Cleanup(func() { _ = command(img.env, "podman", "rm", "--force", name).Run() })
	logs := func() string {
		out, _ := command(img.env, "podman", "logs", name).CombinedOutput()
		return string(out)
	}
	started := waitStarted(t, logs)
	metricsURL := strings.TrimSuffix(started.Metrics, "/metrics")
	waitReady(t, metricsURL+"/readyz", logs)
	brokerAddr := started.Brokers[0]

	pid := strings.TrimSpace(mustRun(t, command(img.env, "podman", "inspect", "--format", "{{.State.Pid}}", name)))
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"Uid", "Gid"} {
		if want := field + ":\t65532\t65532\t65532\t65532"; !strings.Contains(string(status), want+"\n") {
			t.Errorf("the worker's %s is not 65532 (want %q in /proc/%s/status):\n%s", field, want, pid, status)
		}
	}
	if opts, _ := mountOf(t, pid, "/"); !slices.Contains(opts, "ro") {
		t.Errorf("the container's / is mounted %q, want read-only", opts)
	}
	if opts, fstype := mountOf(t, pid, "/tmp"); fstype != "tmpfs" || !slices.Contains(opts, "rw") {
		t.Errorf("the container's /tmp is %s mounted %q, want a writable tmpfs", fstype, opts)
	}

	input, err := os.ReadFile(filepath.Join(root, "examples/gemini-damaged.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, code := output(t, img.onHost(input, "sanitize", "-"))
	if code != 0 {
		t.Fatalf("host sanitize exited %d", code)
	}
	got := roundTrip(t, brokerAddr, input)
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("the ready payload from the container (%d bytes) differs from the host's sanitize (%d bytes)", len(got), len(want)-1)
	}

	mustRun(t, command(img.env, "podman", "stop", "--time", "60", name))
	exit := strings.TrimSpace(mustRun(t, command(img.env, "podman", "inspect", "--format", "{{.State.ExitCode}}", name)))
	if exit != "0" {
		t.Errorf("after SIGTERM the worker exited %s, want 0; log:\n%s", exit, logs())
	}
}

// testVulncheck runs govulncheck on the image's binary against the offline
// database (scripts/vulncheck.sh). The binary is stripped, so govulncheck
// fails on any vulnerability in a package it holds, called or not.
func (img *image) testVulncheck(t *testing.T) {
	cmd := exec.Command(filepath.Join(root, "scripts/vulncheck.sh"), "-mode", "binary", img.host)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("govulncheck -mode binary: %v\n%s", err, out)
	}
}

// container is `podman run` of the image with the chart's restrictions: a
// read-only root filesystem, a tmpfs /tmp, no network. args name the image
// and what to run; stdin, when not nil, is the container's standard input.
func (img *image) container(stdin []byte, args ...string) *exec.Cmd {
	cmd := command(img.env, "podman", append([]string{"run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp"}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd
}

// onHost runs the image's binary on the host. No HYGIENE_* variable of the
// test's environment reaches it (scripts/test.sh exports
// HYGIENE_KAFKA_BROKERS), and its embedded broker and metrics listen on
// free ports, so that it matches the container's defaults in what it does.
func (img *image) onHost(stdin []byte, args ...string) *exec.Cmd {
	cmd := exec.Command(img.host, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HYGIENE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HYGIENE_KAFKA_EMBEDDED_LISTEN=127.0.0.1:0", "HYGIENE_METRICS_LISTEN=127.0.0.1:0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd
}

// command is name with args in env.
func command(env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	return cmd
}

// mustRun runs cmd and returns its standard output; a failure ends the
// test with the command's standard error.
func mustRun(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return string(out)
}

// output runs cmd and returns its standard output and exit status; a
// command that could not start ends the test.
func output(t *testing.T, cmd *exec.Cmd) ([]byte, int) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit):
		return out, exit.ExitCode()
	default:
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
		return nil, 0
	}
}

// sortedLines is s with its lines sorted: the demo prints outcomes in the
// order they arrive, which the partitions decide.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// started is the worker's "worker started" log line.
type started struct {
	Brokers []string `json:"brokers"`
	Metrics string   `json:"metrics"`
}

// waitStarted waits up to a minute for the "worker started" line in logs.
func waitStarted(t *testing.T, logs func() string) started {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		text := logs()
		for _, line := range strings.Split(text, "\n") {
			var entry struct {
				Msg string `json:"msg"`
				started
			}
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "worker started" && len(entry.Brokers) > 0 {
				return entry.started
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not log \"worker started\" within a minute; log:\n%s", text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitReady polls url until it answers 200, for up to a minute.
func waitReady(t *testing.T, url string, logs func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within a minute (last: %v); log:\n%s", url, err, logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// mountOf returns the mount options and the file system type of the mount
// at point as process pid sees it (fields 6 and 9 of its line in
// /proc/PID/mountinfo, proc(5)).
func mountOf(t *testing.T, pid, point string) (opts []string, fstype string) {
	t.Helper()
	info, err := os.ReadFile("/proc/" + pid + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if sep > 5 && len(f) > sep+1 && f[4] == point {
			opts, fstype = strings.Split(f[5], ","), f[sep+1]
		}
	}
	if fstype == "" {
		t.Fatalf("no %s in /proc/%s/mountinfo:\n%s", point, pid, info)
	}
	return opts, fstype
}

// roundTrip produces job to the jobs topic of the broker at addr and
// returns the value of the first record on the ready topic, decompressed.
func roundTrip(t *testing.T, addr string, job []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := kafka.Config{Brokers: []string{addr}}
	sink, err := kafka.NewSink(kafka.SinkConfig{Config: cfg, Topic: "hygiene.jobs", CompressAbove: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sink.Close(context.Background()) }()
	if err := sink.Write(ctx, transport.Record{Key: []byte("image-test/s1"), Value: job}); err != nil {
		t.Fatalf("producing the job to %s: %v", addr, err)
	}
	src, err := kafka.NewSource(kafka.SourceConfig{Config: cfg, Topic: "hygiene.ready", GroupID: "image-test-" + randomHex()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close(context.Background()) }()
	rec, ack, err := src.Read(ctx)
	if err != nil {
		t.Fatalf("reading the ready topic on %s: %v", addr, err)
	}
	_ = ack(ctx, nil)
	value, err := compression.Decode(rec.Value, rec.ContentEncoding(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return value
}

func randomHex() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
