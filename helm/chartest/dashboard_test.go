package chartest

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hygiene-dev/hygiene/internal/metrics"
)

const dashboardFile = ChartDir + "/dashboards/hygiene-dashboard.json"

// describingRegistry records the names of the metrics registered on it.
type describingRegistry struct{ names []string }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *describingRegistry) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names = append(r.names, m[1])
		}
	}
	return nil
}

func (r *describingRegistry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = r.Register(c)
	}
}

func (r *describingRegistry) Unregister(prometheus.Collector) bool { return true }

// workerMetricNames lists every metric the worker registers.
func workerMetricNames(t *testing.T) []string {
	t.Helper()
	reg := &describingRegistry{}
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterSource(func() metrics.SourceStats { return metrics.SourceStats{} }); err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterImages(func() metrics.ImageStats { return metrics.ImageStats{} }); err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterMemory(0, 0); err != nil {
		t.Fatal(err)
	}
	if len(reg.names) < 15 {
		t.Fatalf("found only %d metrics: %v", len(reg.names), reg.names)
	}
	return reg.names
}

// dashboardExprs returns every PromQL expression of the dashboard's panels.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s is not valid JSON: %v", dashboardFile, err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs
}

// The dashboard queries every metric the worker exports, and only those.
func TestDashboardCoversTheMetrics(t *testing.T) {
	known := workerMetricNames(t)
	exprs := dashboardExprs(t)
	used := map[string]bool{}
	name := regexp.MustCompile(`hygiene_[a-z_]+`)
	for _, e := range exprs {
		for _, n := range name.FindAllString(e, -1) {
			base := n
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if !slices.Contains(known, base) {
					base = strings.TrimSuffix(base, suffix)
				}
			}
			if !slices.Contains(known, base) {
				t.Errorf("dashboard queries %s, which the worker does not export (in %s)", n, e)
			}
			used[base] = true
		}
	}
	for _, n := range known {
		if !used[n] {
			t.Errorf("the dashboard has no panel for %s", n)
		}
	}
}

// With grafanaDashboard.enabled the chart ships the dashboard file as is.
func TestDashboardConfigMap(t *testing.T) {
	vals, err := Values(AllFeaturesValues)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Template("hyg", "workers", vals)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Decode(r.Docs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range o.ConfigMaps {
		if got, ok := cm.Data["hygiene-dashboard.json"]; ok {
			if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
				t.Errorf("the dashboard ConfigMap differs from %s", dashboardFile)
			}
			if cm.Labels["grafana_dashboard"] != "1" {
				t.Errorf("dashboard ConfigMap labels %v lack grafana_dashboard=1", cm.Labels)
			}
			return
		}
	}
	t.Fatal("no ConfigMap holds hygiene-dashboard.json")
}
