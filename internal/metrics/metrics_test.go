package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func TestMetricsLintAndNames(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterSource(func() SourceStats { return SourceStats{Lag: 7, Partitions: 2, CommitErrors: 1} }); err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterImages(func() ImageStats { return ImageStats{Resized: 3, CacheHits: 5} }); err != nil {
		t.Fatal(err)
	}
	m.Jobs.WithLabelValues(OutcomeReady).Inc()
	m.DLQRecords.WithLabelValues("invalid_json").Inc()
	m.StageObserver("decode")(time.Millisecond)
	m.JobDuration.Observe(0.01)
	m.ObserveContextFit(511_000, 167_000, 40, true)
	m.ObserveContextFit(300_000, 300_000, 0, false)

	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}

	want := `
# HELP hygiene_consumer_lag Messages between the consumer position and the end of its partitions, from the reader's stats.
# TYPE hygiene_consumer_lag gauge
hygiene_consumer_lag 7
# HELP hygiene_context_fit_turns_dropped_total User turns the context fit left out of histories to fit their model's context window.
# TYPE hygiene_context_fit_turns_dropped_total counter
hygiene_context_fit_turns_dropped_total 40
# HELP hygiene_image_cache_hits_total Image results served from the cache.
# TYPE hygiene_image_cache_hits_total counter
hygiene_image_cache_hits_total 5
# HELP hygiene_jobs_total Jobs finished, by outcome (ready or dead_letter).
# TYPE hygiene_jobs_total counter
hygiene_jobs_total{outcome="ready"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"hygiene_consumer_lag", "hygiene_context_fit_turns_dropped_total", "hygiene_image_cache_hits_total", "hygiene_jobs_total"); err != nil {
		t.Fatal(err)
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), Namespace+"_") {
			t.Errorf("metric %s lacks the %s_ prefix", f.GetName(), Namespace)
		}
	}
}

func TestRegisterTwiceFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg); err == nil {
		t.Fatal("a second New on the same registry succeeded")
	}
}

// TestStageObserverRecordsItsStage: the function StageObserver returns
// records every call into its own stage's series, the one a label look-up
// per observation gave: asked for twice, a stage has one series.
func TestStageObserverRecordsItsStage(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	decode, usage, decodeAgain := m.StageObserver("decode"), m.StageObserver("usage"), m.StageObserver("decode")
	decode(2 * time.Millisecond)
	decodeAgain(3 * time.Millisecond)
	usage(time.Second)
	var sums strings.Builder
	for _, stage := range []string{"decode", "usage"} {
		h := m.StageDuration.WithLabelValues(stage).(prometheus.Histogram)
		var out dto.Metric
		if err := h.Write(&out); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%s %d %.3f\n", stage, out.GetHistogram().GetSampleCount(), out.GetHistogram().GetSampleSum())
	}
	if got := sums.String(); got != "decode 2 0.005\nusage 1 1.000\n" {
		t.Fatalf("stage series:\n%s", got)
	}
	if n := testutil.CollectAndCount(m.StageDuration); n != 2 {
		t.Fatalf("%d stage series, want 2", n)
	}
}
