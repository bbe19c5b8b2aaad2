package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// machine records where the figures were measured.
type machine struct {
	Cores    int    `json:"cores"`
	CPU      string `json:"cpu"`
	MemoryGB int    `json:"memory_gb"`
	Go       string `json:"go"`
	// Experiment is the GOEXPERIMENT the measured worker is built with
	// (workerExperiment).
	Experiment string `json:"goexperiment"`
	OS         string `json:"os"`
	LoadBefore string `json:"load_before"`
	LoadAfter  string `json:"load_after"`
}

// describeMachine reads the cores, CPU model, memory and load of this host.
func describeMachine() machine {
	return machine{
		Cores: runtime.NumCPU(), CPU: procField("/proc/cpuinfo", "model name"),
		MemoryGB: memTotalGB(), Go: runtime.Version(), Experiment: workerExperiment(), OS: osName(), LoadBefore: loadAverage(),
	}
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// memTotalGB is the machine's memory in whole GB.
func memTotalGB() int {
	kb := parseKB(procField("/proc/meminfo", "MemTotal"))
	return int((kb + 1<<19) >> 20)
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// osName is PRETTY_NAME of /etc/os-release.
func osName() string {
	data, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}
