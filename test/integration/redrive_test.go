package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/pipeline/pipelinetest"
	"github.com/hygiene-dev/hygiene/internal/redrive"
	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// Jobs dead-lettered by a too-strict worker are redriven once the worker
// is fixed and all come out ready; a stand-in letter is reported and not
// produced; a dry run produces nothing; a second run of the same group
// produces nothing again; the filters pick by code and by tenant.
func TestRedriveSendsFixedJobsBack(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b broker) {
		tp := newTopics(t, b)
		strict := config.Default()
		strict.Limits.MaxMessages = 1 // every test job has two messages
		proc, _ := pipelinetest.Processor(t, strict)
		stop := runInProcess(t, b, tp, proc)

		var recs []transport.Record
		var ids []string
		for i, tenant := range []string{"acme", "acme", "acme", "beta"} {
			id := fmt.Sprintf("redrive-%d", i)
			recs = append(recs, transport.Record{Key: []byte(tenant + "/s" + id), Value: jobValue(id, tenant, "s"+id),
				Headers: []transport.Header{{Key: "traceparent", Value: []byte(fmt.Sprintf("00-%032x-%016x-01", i+1, i+1))}}})
			ids = append(ids, id)
		}
		if err := newProducer(t, b, tp.jobs).write(context.Background(), recs...); err != nil {
			t.Fatal(err)
		}
		letters := readN(t, b, tp.dlq, 4)
		stop()
		code, _ := letters[0].Header(deadletter.HeaderErrorCode)
		// A stand-in: what the worker writes when even the dead-letter
		// topic refuses the original (its first bytes, the length marked).
		standIn := transport.Record{Key: []byte("acme/big"), Value: []byte(`{"job_id":"big","ten`), Headers: []transport.Header{
			{Key: deadletter.HeaderErrorCode, Value: code}, {Key: deadletter.HeaderOriginalBytes, Value: []byte("20971520")}}}
		if err := newProducer(t, b, tp.dlq).write(context.Background(), standIn, transport.Record{
			Key: []byte("acme/other"), Value: []byte("{}"), Headers: []transport.Header{{Key: deadletter.HeaderErrorCode, Value: []byte("invalid_json")}}}); err != nil {
			t.Fatal(err)
		}

		rc := redrive.Config{Kafka: kafka.Config{Brokers: b.brokers()}, DLQTopic: tp.dlq, JobsTopic: tp.jobs,
			Group: tp.group + ".redrive", FromOffset: -1, Codes: []string{string(code)}, Tenants: []string{"acme"},
			MaxMessageBytes: 1_000_000, DryRun: true}
		sum, err := redrive.Run(context.Background(), rc)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Read != 6 || sum.Matched != 4 || sum.Redriven != 3 || len(sum.StandIns) != 1 {
			t.Fatalf("dry run: %+v; want read 6, matched 4 (3 acme letters and the stand-in), 3 redriven, 1 stand-in", sum)
		}
		rc.DryRun = false
		if sum, err = redrive.Run(context.Background(), rc); err != nil || sum.Redriven != 3 || len(sum.StandIns) != 1 {
			t.Fatalf("redrive: %+v, %v", sum, err)
		}
		if sum, err = redrive.Run(context.Background(), rc); err != nil || sum.Read != 0 || sum.Redriven != 0 {
			t.Fatalf("a second run of the same group: %+v, %v; want nothing read again", sum, err)
		}
		rc.Tenants, rc.FromOffset = []string{"beta"}, 0
		if sum, err = redrive.Run(context.Background(), rc); err != nil || sum.Redriven != 1 {
			t.Fatalf("beta from offset 0: %+v, %v", sum, err)
		}

		// The fixed worker (default limits) gets the four jobs back, with
		// their original headers, and every one comes out ready.
		fixed, _ := pipelinetest.Processor(t, config.Default())
		stop = runInProcess(t, b, tp, fixed)
		ready := readN(t, b, tp.ready, 4)
		stop()
		got := map[string]string{}
		for _, rec := range ready {
			tpHeader, _ := rec.Header("traceparent")
			got[jobID(rec)] = string(tpHeader)
		}
		for i, id := range ids {
			if want := fmt.Sprintf("00-%032x-%016x-01", i+1, i+1); got[id] != want {
				t.Errorf("job %s: ready with traceparent %q, want %q (all ready: %v)", id, got[id], want, got)
			}
		}
	})
}
