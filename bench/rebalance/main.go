// Command rebalance measures what a consumer group's rebalances cost with
// the worker's Kafka Source: for each partition count, a group of real
// members goes 1 -> 3 -> 1 (two members join at once, then the same two
// leave with a clean Close), then 1 -> 2 -> 3 -> 2 -> 1 one member at a
// time, once with the sticky assignor and once with kafka-go's range
// assignor alone (the worker before the sticky one). Each step reports the
// partitions that changed owner among the members that stayed (a leaver's
// partitions move whatever the assignor) and the rebalance's duration:
// from the join (or the leave) to the moment every member holds its final
// partitions. The group has no records: this is the assignment alone.
//
//	go run ./bench/rebalance --brokers $(scripts/kafka.sh start)
//	go run ./bench/rebalance --brokers 127.0.0.1:19210 --partitions 8,32
//
// It prints a Markdown table.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:19092", "bootstrap brokers, comma-separated")
	parts := flag.String("partitions", "8,32", "partition counts, comma-separated")
	flag.Parse()
	fmt.Println("| partitions | assignor | step | partitions moved (of members that stayed) | rebalance |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range strings.Split(*parts, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "rebalance: bad partition count %q\n", p)
			os.Exit(2)
		}
		for _, rangeOnly := range []bool{true, false} {
			if err := measure(strings.Split(*brokers, ","), n, rangeOnly); err != nil {
				fmt.Fprintln(os.Stderr, "rebalance:", err)
				os.Exit(1)
			}
		}
	}
}

// measure runs 1 -> 3 -> 1 members on a fresh topic of p partitions and
// prints one row per step.
func measure(brokers []string, p int, rangeOnly bool) error {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	topic := fmt.Sprintf("bench-rebalance-%d-%s", p, hex.EncodeToString(suffix))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, []string{topic}, p); err != nil {
		return err
	}
	name := map[bool]string{true: "range", false: "sticky"}[rangeOnly]
	join := func() (*kafka.Source, error) {
		return kafka.NewSource(kafka.SourceConfig{
			Config: kafka.Config{Brokers: brokers}, Topic: topic, GroupID: topic + ".group", RangeOnly: rangeOnly,
			CommitInterval: 500 * time.Millisecond, SessionTimeout: 6 * time.Second,
			HeartbeatInterval: 300 * time.Millisecond, RebalanceTimeout: 10 * time.Second,
		})
	}
	var members []*kafka.Source
	defer func() {
		for _, m := range members {
			_ = m.Close(context.Background())
		}
	}()
	before := [][]int{}
	// 1 -> 3 at once, back to 1 at once, then 1 -> 2 -> 3 -> 2 -> 1 one at a time.
	for _, step := range []struct {
		name   string
		target int
	}{{"", 1}, {"1 -> 3 (two join)", 3}, {"3 -> 1 (two leave)", 1}, {"1 -> 2 (join)", 2}, {"2 -> 3 (join)", 3}, {"3 -> 2 (leave)", 2}, {"2 -> 1 (leave)", 1}} {
		start := time.Now()
		for len(members) < step.target {
			m, err := join()
			if err != nil {
				return err
			}
			members = append(members, m)
		}
		for len(members) > step.target {
			last := members[len(members)-1]
			members = members[:len(members)-1]
			if err := last.Close(context.Background()); err != nil {
				return err
			}
		}
		after, at, err := settle(members, p)
		if err != nil {
			return err
		}
		if step.name != "" {
			fmt.Printf("| %d | %s | %s | %d | %.1f s |\n", p, name, step.name, moved(before[:min(len(before), len(after))], after), at.Sub(start).Seconds())
		}
		before = after
	}
	return nil
}

// settle waits until members hold all p partitions, each once, unchanged
// for 3 s, and returns their partitions and when that assignment was first
// seen.
func settle(members []*kafka.Source, p int) ([][]int, time.Time, error) {
	deadline := time.Now().Add(2 * time.Minute)
	var last [][]int
	var since time.Time
	for time.Now().Before(deadline) {
		now := make([][]int, len(members))
		seen := map[int]bool{}
		ok := true
		for i, m := range members {
			ok = ok && m.Ready()
			now[i] = m.Partitions()
			for _, q := range now[i] {
				seen[q] = true
			}
		}
		ok = ok && len(seen) == p
		switch {
		case !ok:
			last = nil
		case !slices.EqualFunc(now, last, slices.Equal):
			last, since = now, time.Now()
		case time.Since(since) > 3*time.Second:
			return last, since, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, time.Time{}, fmt.Errorf("%d members did not settle on %d partitions within 2 minutes", len(members), p)
}

// moved counts the partitions a member of before (by index) no longer
// holds in after.
func moved(before, after [][]int) int {
	n := 0
	for i, ps := range before {
		for _, q := range ps {
			if i >= len(after) || !slices.Contains(after[i], q) {
				n++
			}
		}
	}
	return n
}
