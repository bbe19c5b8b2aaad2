package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/docs/schemas"
)

// worker schema prints each embedded schema byte for byte and the bundled
// OpenAPI document; a name it does not know is a usage error.
func TestSchemaCommand(t *testing.T) {
	for _, name := range schemas.Names {
		var out, errb bytes.Buffer
		if code := dispatch([]string{"schema", name}, nil, &out, &errb); code != exitOK {
			t.Fatalf("worker schema %s: exit %d, %s", name, code, errb.String())
		}
		want, _ := schemas.Schema(name)
		if !bytes.Equal(out.Bytes(), want) || !bytes.Contains(want, []byte(`"$id"`)) {
			t.Errorf("worker schema %s printed %d bytes, want the %d of %s", name, out.Len(), len(want), schemas.File(name))
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"schema", "openapi"}, nil, &out, &errb); code != exitOK || !bytes.Equal(out.Bytes(), schemas.OpenAPI()) {
		t.Errorf("worker schema openapi: exit %d, %d bytes", code, out.Len())
	}
	for _, args := range [][]string{{"schema"}, {"schema", "jobs"}, {"schema", "job", "payload"}} {
		var out, errb bytes.Buffer
		if code := dispatch(args, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "worker schema") {
			t.Errorf("worker %s: exit %d, stderr %q; want 2 and the usage", strings.Join(args, " "), code, errb.String())
		}
	}
}
