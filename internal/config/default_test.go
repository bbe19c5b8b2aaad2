package config

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

const shippedFile = "../../configs/worker.yaml"

// The shipped file writes out every default: loading it must give Default().
func TestShippedFileEqualsDefault(t *testing.T) {
	got, err := Load(shippedFile, nil)
	if err != nil {
		t.Fatalf("Load(%s): %v", shippedFile, err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Fatalf("configs/worker.yaml and Default() differ:\nfile:    %+v\ndefault: %+v", got, want)
	}
}

// The shipped file names every setting explicitly, each with a comment, and
// nothing else; a new field without a line in the file fails here.
func TestShippedFileListsEverySettingWithAComment(t *testing.T) {
	data, err := os.ReadFile(shippedFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	leaves := map[string]*yaml.Node{}
	collectLeaves(doc.Content[0], "", leaves)
	var cfg Config
	var want []string
	for _, s := range leafSettings(&cfg) {
		want = append(want, s.Path)
	}
	var got []string
	for path, key := range leaves {
		got = append(got, path)
		if strings.TrimSpace(key.HeadComment+key.LineComment) == "" {
			t.Errorf("configs/worker.yaml: %s (line %d) has no comment", path, key.Line)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("configs/worker.yaml keys differ from the Config fields:\nfile:   %v\nfields: %v", got, want)
	}
}

// collectLeaves maps the dotted path of every key whose value is not a
// mapping (or is the tenants map) to its key node.
func collectLeaves(n *yaml.Node, path string, out map[string]*yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		p := join(path, key.Value)
		if val.Kind == yaml.MappingNode && p != "tenants" {
			collectLeaves(val, p, out)
			continue
		}
		out[p] = key
	}
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestPoolSizes(t *testing.T) {
	tests := []struct {
		name     string
		pipe     int
		cores    int
		wantJobs int
	}{
		{"zero means derived from cores", 0, 4, 8},
		{"explicit size wins", 3, 4, 3},
		{"one core", 0, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PipelineConfig{Workers: tt.pipe}
			if got := p.PoolSize(tt.cores); got != tt.wantJobs {
				t.Errorf("PipelineConfig.PoolSize = %d, want %d", got, tt.wantJobs)
			}
		})
	}
}

// The kafka connection's defaults are package kafka's: Default hands the
// transport exactly kafka.DefaultConfig.
func TestDefaultKafkaConnectionIsTheTransports(t *testing.T) {
	if got, want := Default().Kafka.Connection([]string{}), kafka.DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Default().Kafka.Connection = %+v, want kafka.DefaultConfig() %+v", got, want)
	}
}
