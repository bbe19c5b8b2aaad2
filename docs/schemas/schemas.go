// Package schemas is the published contract of the worker's records and of
// its HTTP API, as files a producer in any language can use: JSON Schemas
// (draft 2020-12) of the job (job.schema.json), the ready payload
// (payload.schema.json) and the dead letter, its headers and codes
// (deadletter.schema.json), and the OpenAPI 3.1 document of the HTTP
// listener (openapi.json), which refers to the schemas by their $id.
//
// The files are the source; this package embeds them (`worker schema`
// prints one, the HTTP listener serves OpenAPI). Its tests hold them to the
// Go types: a field on one side only fails them (drift_test.go), and every
// example, generated job and produced payload is validated against them
// (package schematest does it for the other packages' tests).
//
// May import: no package of this module.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

//go:embed *.json
var files embed.FS

// The schemas, by the name `worker schema` takes.
const (
	Job        = "job"
	Payload    = "payload"
	DeadLetter = "deadletter"
)

// Names lists the schemas in a fixed order.
var Names = []string{Job, Payload, DeadLetter}

// File is the file name of schema name ("job.schema.json").
func File(name string) string { return name + ".schema.json" }

// Schema returns the schema name (one of Names) as its file holds it.
func Schema(name string) ([]byte, error) {
	if !slices.Contains(Names, name) {
		return nil, fmt.Errorf("no schema %q; want one of %v", name, Names)
	}
	return files.ReadFile(File(name))
}

// ID is the $id of schema name: the URL other documents refer to it by.
func ID(name string) string {
	b, err := Schema(name)
	if err != nil {
		panic(err)
	}
	var s struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		panic(fmt.Sprintf("schemas: %s: %v", File(name), err))
	}
	return s.ID
}

// OpenAPI is the OpenAPI document of the HTTP API, bundled: openapi.json
// (which refers to the schemas as the files beside it, so it resolves read
// from this directory) with each components.schemas entry that is only a
// $ref to one of them replaced by the schema itself. The served document
// then resolves without fetching anything; a $ref inside a schema (the
// payload's to the job's target) finds the other by its $id. The same
// bytes every call, bundled on the first: a process that never serves the
// document (`worker sanitize`) does not pay the 2 ms and 4,000 allocations
// of bundling it at start-up.
func OpenAPI() []byte { return openAPI() }

var openAPI = sync.OnceValue(func() []byte {
	raw, err := files.ReadFile("openapi.json")
	if err != nil {
		panic(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	var all map[string]any
	if err := errors.Join(json.Unmarshal(raw, &doc), json.Unmarshal(raw, &all)); err != nil {
		panic("schemas: openapi.json: " + err.Error())
	}
	components := all["components"].(map[string]any)["schemas"].(map[string]any)
	for key, value := range doc.Components.Schemas {
		var ref struct {
			Ref string `json:"$ref"`
		}
		_ = json.Unmarshal(value, &ref)
		for _, name := range Names {
			if ref.Ref != File(name) {
				continue
			}
			var s any
			b, _ := Schema(name)
			if err := json.Unmarshal(b, &s); err != nil {
				panic(fmt.Sprintf("schemas: %s: %v", File(name), err))
			}
			components[key] = s
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		panic(err)
	}
	return out.Bytes()
})
