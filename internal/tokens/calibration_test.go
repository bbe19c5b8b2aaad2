package tokens

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCalibration checks the figures the margins are calibrated on (see
// margins): on English prose, Go code and JSON (this repository's docs,
// sources and examples, every file over 2 KB) cl100k_base, a smaller BPE
// than any bound family's, gives at most 1.25x o200k_base's tokens; on
// other scripts (testdata/multilingual.txt: Russian, Ukrainian, Chinese,
// Japanese, Korean, Hindi, Arabic, Greek, Spanish, German) the pieces that
// are not ASCII take at most otherScripts (2.5) times o200k_base's tokens.
func TestCalibration(t *testing.T) {
	var files []string
	for _, g := range []string{"../../docs/*.md", "../*/*.go", "../../examples/*.json"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	margin := float64(margins[famOpenWeight][0]) / float64(margins[famOpenWeight][1])
	worst, measured := 0.0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2048 {
			continue
		}
		measured++
		r := float64(cl100k.count(b)) / float64(o200k.count(b))
		worst = max(worst, r)
		if r > margin {
			t.Errorf("%s: cl100k/o200k = %.3f > margin %.2f", f, r, margin)
		}
	}
	if measured < 50 {
		t.Fatalf("only %d files measured", measured)
	}
	t.Logf("%d files: worst cl100k/o200k %.3f", measured, worst)

	b, err := os.ReadFile("testdata/multilingual.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, clOther := cl100k.countByScript(b)
	_, oOther := o200k.countByScript(b)
	r := float64(clOther) / float64(oOther)
	if r > otherScripts/100.0 {
		t.Errorf("multilingual: cl100k/o200k = %.3f > %.2f", r, otherScripts/100.0)
	}
	t.Logf("multilingual: cl100k/o200k on pieces that are not ASCII: %.3f", r)
}
