package replay

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SessionFile is one archived session found under the inputs.
type SessionFile struct {
	Path    string // as found (root joined with Rel)
	Rel     string // path relative to the input it was found under
	Size    int64
	ModTime int64 // ns since the epoch; with Size, identifies the version done
}

// isSessionFile reports whether a name is an OpenClaw session file.
func isSessionFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst")
}

// Discover walks the inputs (directories or files) and returns the session
// files in a stable order. A named file is taken whatever its extension; in
// directories only .jsonl and .jsonl.zst files count. An input that does not
// exist is an error.
func Discover(inputs []string) ([]SessionFile, error) {
	var files []SessionFile
	seen := map[string]bool{}
	add := func(path, rel string, info fs.FileInfo) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		files = append(files, SessionFile{Path: path, Rel: rel, Size: info.Size(), ModTime: info.ModTime().UnixNano()})
	}
	for _, in := range inputs {
		info, err := os.Stat(in)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
		if !info.IsDir() {
			add(in, filepath.Base(in), info)
			continue
		}
		err = filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !isSessionFile(d.Name()) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(in, path)
			if err != nil {
				rel = d.Name()
			}
			add(path, rel, info)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walking %s: %w", in, err)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// outputName is the ready payload's file name for a session: its relative
// path with the session extension replaced by .ready.json.
func outputName(rel string) string {
	rel = strings.TrimSuffix(rel, ".zst")
	rel = strings.TrimSuffix(rel, ".jsonl")
	return rel + ".ready.json"
}
