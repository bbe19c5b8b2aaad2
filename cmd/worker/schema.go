package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/docs/schemas"
)

const schemaUsage = `usage: worker schema job|payload|deadletter|openapi

Prints a published contract (docs/schemas, embedded in the binary):
  job         the JSON Schema (draft 2020-12) of a job, the value of a record on hygiene.jobs
  payload     the JSON Schema of a ready payload, the value of a record on hygiene.ready
  deadletter  the JSON Schema of a dead letter on hygiene.dlq: its headers (every code) and value
  openapi     the OpenAPI 3.1 document of the HTTP API, the schemas bundled (as GET /openapi.json serves it)
`

// schemaCommand prints one schema, or the OpenAPI document.
func schemaCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, schemaUsage)
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprint(stderr, schemaUsage)
		return exitUsage
	}
	if args[0] == "openapi" {
		_, _ = stdout.Write(schemas.OpenAPI())
		return exitOK
	}
	if !slices.Contains(schemas.Names, args[0]) {
		fmt.Fprintf(stderr, "worker schema: no schema %q; want one of %s, openapi\n", args[0], strings.Join(schemas.Names, ", "))
		return exitUsage
	}
	b, err := schemas.Schema(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "worker schema: %v\n", err)
		return exitRuntime
	}
	_, _ = stdout.Write(b)
	return exitOK
}
