package pairing

import "github.com/hygiene-dev/hygiene/internal/transcript"

// pairedAsIs reads msgs once and reports whether the pairing repair
// (repair) would return them as they are, counting nothing, and whether
// every result also carries its call's id as written (exact):
// transcript.PairedCheck says when. It allocates nothing, where the repair
// keeps a record per call and per result (about 90 bytes a call on a clean
// history) to find that out. AlignResultIDs has nothing to write where it
// is exact.
func pairedAsIs(msgs []*transcript.Message) (paired, exact bool) {
	var c transcript.PairedCheck
	for _, m := range msgs {
		if !c.Add(m) {
			return false, false
		}
	}
	return c.Paired()
}
