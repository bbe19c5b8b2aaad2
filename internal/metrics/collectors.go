package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// SourceStats is what a job source reports at scrape time.
type SourceStats struct {
	// Lag is the messages between the consumer's position and the end of
	// its partitions.
	Lag int64
	// Partitions is the number of partitions assigned to this worker now.
	Partitions int
	// CommitErrors counts failed offset commits since the source opened.
	CommitErrors int64
}

// ImageStats is the image processor's counters, read at scrape time.
type ImageStats struct {
	Resized, Omitted, CacheHits, CacheMisses int64
}

// RegisterSource registers hygiene_consumer_lag, hygiene_partitions_assigned
// and hygiene_commit_errors_total, read from stats at every scrape.
func (m *Metrics) RegisterSource(stats func() SourceStats) error {
	return m.register(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "consumer_lag",
			Help: "Messages between the consumer position and the end of its partitions, from the reader's stats.",
		}, func() float64 { return float64(stats().Lag) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "partitions_assigned",
			Help: "Partitions of the jobs topic assigned to this worker.",
		}, func() float64 { return float64(stats().Partitions) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: Namespace, Name: "commit_errors_total",
			Help: "Offset commits that failed.",
		}, func() float64 { return float64(stats().CommitErrors) }),
	)
}

// RegisterImages registers the image counters, read from stats at every scrape.
func (m *Metrics) RegisterImages(stats func() ImageStats) error {
	counter := func(name, help string, get func(ImageStats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help},
			func() float64 { return float64(get(stats())) })
	}
	return m.register(
		counter("images_resized_total", "Images resized or recompressed by libvips.", func(s ImageStats) int64 { return s.Resized }),
		counter("images_omitted_total", "Images replaced by the omitted-image text.", func(s ImageStats) int64 { return s.Omitted }),
		counter("image_cache_hits_total", "Image results served from the cache.", func(s ImageStats) int64 { return s.CacheHits }),
		counter("image_cache_misses_total", "Image lookups that missed the cache.", func(s ImageStats) int64 { return s.CacheMisses }),
	)
}

func (m *Metrics) register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return fmt.Errorf("metrics: registering a collector: %w", err)
		}
	}
	return nil
}
