package turns

import (
	"context"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ModelChanged is the read half of spec §3.13, at §4 step 0, computed once
// before the chain into env.ModelChanged (which stages only read): it finds
// the newest model-snapshot custom entry of the session and reports whether
// its provider, modelApi or modelId differs from the target's (absent or
// null compared as ""). The target is compared in its resolved form
// (normalised provider, trimmed API and model). Choice: with no prior
// snapshot the model did not change (there is nothing to have changed
// from), so the Responses reasoning downgrade keeps its normal form.
func ModelChanged(entries []transcript.CustomEntry, p policy.Policy) bool {
	prior, ok := priorSnapshot(entries)
	return ok && prior != snapshot{p.Provider, p.API, p.Model}
}

// ModelSnapshot is the write half of spec §3.13, at §4 step 17: when the
// target names at least one of provider, modelApi and modelId, and the
// session has no prior snapshot or the model changed, it appends one
// model-snapshot entry to t.AppendEntries with data {timestamp, provider,
// modelApi, modelId}. The timestamp is the job's now_ms, else the newest
// parseable message timestamp, and is left out when neither exists. It
// never appends twice in one job.
func ModelSnapshot() stage.Stage {
	const name = "model_snapshot"
	return stage.Stage{Name: name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		cur := currentSnapshot(env)
		if cur == (snapshot{}) {
			return nil
		}
		if prior, ok := priorSnapshot(t.CustomEntries); ok && prior == cur {
			return nil
		}
		for _, e := range t.AppendEntries {
			if e.CustomType == customModelSnapshot {
				return nil
			}
		}
		ts, ok := snapshotTime(t, env)
		raw := appendSnapshot(make([]byte, 0, 80+len(cur.provider)+len(cur.api)+len(cur.model)), cur, ts, ok)
		t.AppendEntries = append(t.AppendEntries, transcript.CustomEntry{CustomType: customModelSnapshot, Data: raw})
		env.Report.Add(name, "appended", 1)
		return nil
	}}
}

// appendSnapshot appends a model-snapshot entry's data as encoding/json
// writes its struct {timestamp (omitted when !ok), provider, modelApi,
// modelId}, without the reflection: one entry per job.
func appendSnapshot(dst []byte, s snapshot, ts int64, ok bool) []byte {
	dst = append(dst, '{')
	if ok {
		dst = strconv.AppendInt(append(dst, `"timestamp":`...), ts, 10)
		dst = append(dst, ',')
	}
	dst = transcript.AppendMarshalString(append(dst, `"provider":`...), s.provider)
	dst = transcript.AppendMarshalString(append(dst, `,"modelApi":`...), s.api)
	dst = transcript.AppendMarshalString(append(dst, `,"modelId":`...), s.model)
	return append(dst, '}')
}

// snapshot is the model identity a model-snapshot entry records.
type snapshot struct{ provider, api, model string }

func currentSnapshot(env *stage.Env) snapshot {
	return snapshot{env.Policy.Provider, env.Policy.API, env.Policy.Model}
}

// priorSnapshot reads the newest model-snapshot entry; a non-string field
// reads as "".
func priorSnapshot(entries []transcript.CustomEntry) (snapshot, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].CustomType != customModelSnapshot {
			continue
		}
		obj, _ := transcript.ParseObject(entries[i].Data)
		p, _ := obj.String("provider")
		a, _ := obj.String("modelApi")
		m, _ := obj.String("modelId")
		return snapshot{p, a, m}, true
	}
	return snapshot{}, false
}

// snapshotTime is now_ms, else the newest parseable message timestamp.
func snapshotTime(t *transcript.Transcript, env *stage.Env) (int64, bool) {
	if now, ok := env.Settings.Request.Now(); ok {
		return now, true
	}
	var latest latestTime
	stage.EachChunk(env, len(t.Messages), t.Messages, latestOf, func(c latestTime) {
		if c.found {
			latest.see(c.ts)
		}
	})
	return latest.ts, latest.found
}

// latestOf is the newest parseable timestamp of msgs[lo:hi], if any.
func latestOf(msgs []*transcript.Message, lo, hi int) latestTime {
	var l latestTime
	for _, m := range msgs[lo:hi] {
		if ts, ok := m.Timestamp(); ok {
			l.see(ts)
		}
	}
	return l
}

// latestTime is the newest timestamp seen, if any.
type latestTime struct {
	ts    int64
	found bool
}

func (l *latestTime) see(ts int64) {
	if !l.found || ts > l.ts {
		l.ts, l.found = ts, true
	}
}
