package audit

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
)

// MaxDropsShown bounds the drops the table lists per session; --json has
// them all.
const MaxDropsShown = 20

// WriteTable prints the report for a reader: one row per session and
// target, the drops of each under it, then the totals.
func WriteTable(w io.Writer, rep Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tTARGET\tOUTCOME\tCALLS IN>OUT\tRESULTS IN>OUT\tDROPPED\tVALID DROPPED\tREQUEST\tTOKENS")
	for _, s := range rep.Sessions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d>%d\t%d>%d\t%d\t%d\t%s\t%s\n", s.Path, orDash(s.Target), s.Outcome,
			s.Calls.In, s.Calls.Out, s.Results.In, s.Results.Out, len(s.Drops), s.ValidDrops, requestCell(s.Request), tokensCell(s.Context))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rep.Sessions {
		if len(s.Drops) == 0 && len(s.Parts) == 0 && s.Outcome == OutcomeReady && (s.Request == nil || s.Request.OK) && (s.Context == nil || s.Context.Mode == "") {
			continue
		}
		fmt.Fprintf(w, "\n%s for %s: %s\n", s.Path, orDash(s.Target), s.Outcome)
		if s.Outcome != OutcomeReady && s.Reason != "" {
			fmt.Fprintf(w, "  %s\n", s.Reason)
		}
		if len(s.Parts) > 0 {
			fmt.Fprintf(w, "  parts not sent as they were: %s\n", partsLine(s.Parts))
		}
		for i, d := range s.Drops {
			if i == MaxDropsShown {
				fmt.Fprintf(w, "  ... and %d more drops (see --json)\n", len(s.Drops)-i)
				break
			}
			where := fmt.Sprintf("messages[%d]", d.Message)
			if d.Block >= 0 {
				where += fmt.Sprintf(".content[%d]", d.Block)
			}
			fmt.Fprintf(w, "  %s %s %q %q: %s: %s\n", where, d.Kind, d.ID, d.Name, d.Class, d.Reason)
		}
		if s.Request != nil {
			for _, v := range s.Request.Violations {
				fmt.Fprintf(w, "  request: %s\n", v)
			}
		}
		if c := s.Context; c != nil && c.Mode != "" {
			fmt.Fprintf(w, "  context window: %d tokens (%s) + %d reserved > %d: %d tool results trimmed, %d cleared, %d turns (%d messages) left out, %d tokens after\n",
				c.TokensBefore, c.Tokenizer, c.Reserve, c.Window, c.SoftTrimmed, c.HardCleared, c.TurnsDropped, c.MessagesDropped, c.TokensAfter)
		}
	}
	t := rep.Totals
	_, err := fmt.Fprintf(w, "\naudit: %d sessions x targets, %d ready %v; calls %d>%d, results %d>%d (%d synthesised); drops %v; %d valid calls or results dropped; %d request bodies fail the contract; parts [%s]\n",
		t.Sessions, t.Ready, sorted(t.Outcomes), t.Calls.In, t.Calls.Out, t.Results.In, t.Results.Out, t.Results.Added, sorted(t.DropsByClass), t.ValidDrops, t.RequestFailures, partsLine(t.PartsByKind))
	return err
}

// partsLine prints parts by kind in key order: "document replaced 1,
// cache_control dropped 2".
func partsLine(parts map[string]PartCount) string {
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(parts)) {
		c := parts[kind]
		if c.Dropped > 0 {
			out = append(out, fmt.Sprintf("%s dropped %d", kind, c.Dropped))
		}
		if c.Replaced > 0 {
			out = append(out, fmt.Sprintf("%s replaced %d", kind, c.Replaced))
		}
	}
	return strings.Join(out, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tokensCell is a session's tokens against its room (the window less the
// reserve, or the model's input limit): "12345/168000" when it fits as it is,
// "1105843>167578/168000" when the fit trimmed or dropped, "OVER" after
// the figures when the payload is over (context_fit report, or refused).
func tokensCell(c *stage.ContextFitReport) string {
	switch {
	case c == nil:
		return "-"
	case c.Mode == "":
		return fmt.Sprintf("%d/%d", c.TokensAfter, c.Room)
	case !c.Fits:
		return fmt.Sprintf("%d/%d OVER", c.TokensBefore, c.Room)
	}
	return fmt.Sprintf("%d>%d/%d", c.TokensBefore, c.TokensAfter, c.Room)
}

func requestCell(rc *RequestCheck) string {
	switch {
	case rc == nil:
		return "-"
	case rc.OK:
		return "ok " + rc.Format
	}
	return fmt.Sprintf("FAIL %s (%d)", rc.Format, len(rc.Violations))
}

// sorted prints a count map as "a=1 b=2" in key order.
func sorted(m map[string]int) string {
	s := "["
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", k, m[k])
	}
	return s + "]"
}
