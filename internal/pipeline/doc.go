// Package pipeline turns job records into ready payloads or dead letters,
// and runs that work between a transport.Source and two transport.Sinks.
//
// The Processor handles one record, as one literal list of named steps
// (jobSteps, steps.go): decode (bounded decompression, then the JSON),
// parse_request, the job's settings and options, the stage chain, render
// and encode. Processor.Process runs them all over a record;
// Processor.Sanitize runs those after the decode over a transcript its
// caller decoded (`worker sanitize`, `worker replay`, `worker audit`). Its
// error is only ever the context's; bad input and bugs become dead-letter
// outcomes naming the step.
//
// The Runner is the service around it:
//
//   - a dispatcher that keeps the jobs of one record key in offset order and
//     runs different keys in parallel;
//   - a bounded ants pool that holds a worker only while a job is
//     processed, with a per-tenant cap (no tenant holds more than its share
//     of the pool, and tenants with waiting work take turns);
//   - an in-flight budget of jobs and bytes read but not acknowledged;
//   - output written durably before its input is acknowledged, transient
//     write errors retried with backoff and never acknowledged, invalid input
//     and panics sent to the dead-letter topic (design §2 codes and headers)
//     and then acknowledged;
//   - a drain on shutdown: stop reading, finish what was read within the
//     deadline, acknowledge the rest with an error so it is delivered again.
//
// A job's life reads top to bottom in one file, life.go: read
// (Runner.readLoop, Runner.admit) → schedule (scheduler.dispatch) → process
// (Runner.runJob, Runner.outcomeOf, then Processor.Process in process.go,
// which runs jobSteps, steps.go) →
// write (Runner.finish, Runner.deliver) → ack (Runner.ackQuietly,
// Runner.release, Runner.abandon). The scheduler's queues and gap fillers,
// the budget and the drain keep their own files.
//
// NewRunner only checks and assembles: it starts no goroutine and no pool.
// Runner.Run, the service's loop (Processor.Sanitize is one job), starts
// the pool and its dispatcher and stops them before it returns, so a
// Runner built and never run needs no release. Before Run, Healthy is
// false and a job given to Submit waits for the pool; after Run, Healthy is
// false and Submit returns ErrDraining.
//
// Each stage of the chain runs inside one middleware (instrumented,
// process.go): its span, its duration, panic recovery.
//
// Three error classes follow from that: invalid input (dead letter, then
// ack), transient (retry, no ack) and bug (recovered, dead letter naming the
// stage, counted). Delivery is at least once; because output is a pure
// function of the input bytes and the configuration, a redelivered job
// produces the same bytes again.
//
// May import: internal/compression, internal/config, internal/contract,
// internal/deadletter, internal/metrics, internal/policy, internal/ratelimit,
// internal/settings, internal/stages/stage, internal/stages/turns,
// internal/transcript, internal/transport, internal/wire.
package pipeline
