package pairing

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// historyGen builds damaged histories from a seed: missing, displaced,
// duplicated and synthetic results, orphans of removed calls, provider ids
// repeated across turns, failed turns, blank names, padded ids, id-less
// results and null entries. Every message has a unique "seq" member so a
// test can find it again in the output.
type historyGen struct {
	r    *rand.Rand
	seq  int
	ids  int
	msgs []string
	late []string // displaced results waiting to be placed
}

func newHistoryGen(seed uint64) *historyGen {
	return &historyGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *historyGen) nextSeq() string { g.seq++; return strconv.Itoa(g.seq) }

func (g *historyGen) user() string {
	return `{"role":"user","content":"u","seq":` + g.nextSeq() + `}`
}

func (g *historyGen) assistant(stop string, blocks []string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `],"stopReason":` + strconv.Quote(stop) +
		`,"timestamp":` + strconv.Itoa(1000+g.seq) + `,"seq":` + g.nextSeq() + `}`
}

// result is a tool result; idField "" leaves the id out.
func (g *historyGen) result(idField, id, name string, synthetic bool) string {
	s := `{"role":"toolResult"`
	if idField != "" {
		s += `,` + strconv.Quote(idField) + `:` + strconv.Quote(id)
	}
	s += `,"toolName":` + strconv.Quote(name)
	if synthetic {
		s += `,"content":[{"type":"text","text":"x"}],"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"},"isError":true`
	} else {
		s += `,"content":[{"type":"text","text":"out"}],"isError":false`
	}
	return s + `,"seq":` + g.nextSeq() + `}`
}

var toolNames = []string{"read", "exec", "write"}

// history returns a damaged history of about turns user turns.
func (g *historyGen) history(turns int) string {
	g.turns(turns)
	return "[" + strings.Join(g.msgs, ",") + "]"
}

// turns appends about n damaged user turns to g.msgs.
func (g *historyGen) turns(n int) {
	r := g.r
	for range n {
		g.place(g.user())
		k := r.IntN(4)
		if k == 0 {
			g.place(g.assistant("stop", []string{`{"type":"text","text":"done"}`}))
			continue
		}
		stop := "toolUse"
		switch r.IntN(12) {
		case 0:
			stop = "error"
		case 1:
			stop = "aborted"
		}
		ids := make([]string, k)
		names := make([]string, k)
		blocks := make([]string, k)
		for i := range ids {
			if r.IntN(4) == 0 {
				ids[i] = "t" + strconv.Itoa(1+r.IntN(3)) // provider ids repeated across turns
			} else {
				g.ids++
				ids[i] = "c" + strconv.Itoa(g.ids)
			}
			names[i] = toolNames[r.IntN(len(toolNames))]
			blocks[i] = `{"type":"toolCall","id":` + strconv.Quote(ids[i]) + `,"name":` + strconv.Quote(names[i]) + `,"arguments":{}}`
		}
		g.place(g.assistant(stop, blocks))
		var now []string
		for i, id := range ids {
			name := names[i]
			switch r.IntN(20) {
			case 0, 1: // missing
			case 2, 3: // displaced to a later turn
				g.late = append(g.late, g.result("toolCallId", id, name, false))
			case 4: // duplicated
				now = append(now, g.result("toolCallId", id, name, false), g.result("toolCallId", id, name, false))
			case 5: // a synthetic now, and maybe the real one later
				now = append(now, g.result("toolCallId", id, name, true))
				if r.IntN(2) == 0 {
					g.late = append(g.late, g.result("toolCallId", id, name, false))
				}
			case 6: // blank name
				now = append(now, g.result("toolCallId", id, "  ", false))
			case 7: // padded id in a legacy alias
				now = append(now, g.result("tool_use_id", " "+id+" ", name, false))
			case 8: // legacy id-less
				now = append(now, g.result("", "", name, false))
			default:
				now = append(now, g.result("toolCallId", id, name, false))
			}
		}
		if len(now) > 1 && r.IntN(4) == 0 {
			i, j := r.IntN(len(now)), r.IntN(len(now))
			now[i], now[j] = now[j], now[i]
		}
		for _, m := range now {
			if r.IntN(10) == 0 {
				g.place(g.user()) // a user turn wedged between a call and its result
			}
			g.place(m)
		}
		if r.IntN(8) == 0 { // the result of a call an earlier rule removed
			g.ids++
			g.place(g.result("toolCallId", "gone"+strconv.Itoa(g.ids), "read", false))
		}
		if r.IntN(25) == 0 {
			g.place("null")
		}
	}
	g.msgs = append(g.msgs, g.late...)
	g.late = g.late[:0]
}

// place appends a message, first letting some displaced results land.
func (g *historyGen) place(m string) {
	for len(g.late) > 0 && g.r.IntN(3) == 0 {
		i := g.r.IntN(len(g.late))
		g.msgs = append(g.msgs, g.late[i])
		g.late = append(g.late[:i], g.late[i+1:]...)
	}
	g.msgs = append(g.msgs, m)
}

// damagedHistory is a seeded damaged history of the given number of turns.
func damagedHistory(seed uint64, turns int) string { return newHistoryGen(seed).history(turns) }
