package wire

import (
	"bytes"
	"encoding/json"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// A tool's schema comes in one of two dialects. JSON Schema is what
// Anthropic (input_schema), Bedrock (inputSchema.json), OpenAI and Mistral
// (parameters) and Gemini's parametersJsonSchema take. Gemini's own
// `parameters` is its Schema message, an OpenAPI 3.0 subset, which
// google-genai, Google ADK and most Gemini clients send: the types are the
// Type enum's names ("OBJECT", "STRING", "ARRAY", "INTEGER", "NUMBER",
// "BOOLEAN"), a null value is allowed by "nullable": true, "format" takes
// OpenAPI's values (int32, float, enum, ...), "example" holds one example,
// "propertyOrdering" orders the properties, and a body in proto names
// spells the keywords in snake_case (any_of, max_items, property_ordering).
// Source: "Schema", ai.google.dev/api/caching#Schema, and the Vertex AI
// reference of the same name.
//
// A schema in Gemini's dialect is sent to Gemini as it is, as `parameters`
// (geminiSchema), and converted to JSON Schema for every other target
// (toolSchema, jsonSchema).

// geminiTypes maps the names of Gemini's Type enum to JSON Schema's types
// ("" for TYPE_UNSPECIFIED: no type).
var geminiTypes = map[string]string{
	"TYPE_UNSPECIFIED": "", "STRING": "string", "NUMBER": "number", "INTEGER": "integer",
	"BOOLEAN": "boolean", "ARRAY": "array", "OBJECT": "object", "NULL": "null",
}

// geminiKeywords are the keywords of Gemini's Schema (JSON names), true for
// those JSON Schema does not have: reading one of these marks the dialect.
var geminiKeywords = map[string]bool{
	"nullable": true, "propertyOrdering": true,
	"type": false, "format": false, "title": false, "description": false, "enum": false,
	"maxItems": false, "minItems": false, "properties": false, "required": false, "minProperties": false,
	"maxProperties": false, "minLength": false, "maxLength": false, "pattern": false, "example": false,
	"anyOf": false, "default": false, "items": false, "minimum": false, "maximum": false,
}

// schemaMembers are the keywords whose value is a map of names to schemas
// (the names are the caller's), schemaLists those whose value is a list of
// schemas, schemaOne those whose value is one schema.
var (
	schemaMembers = map[string]bool{"properties": true, "$defs": true, "definitions": true, "patternProperties": true}
	schemaLists   = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
	schemaOne     = map[string]bool{"items": true, "not": true, "additionalProperties": true, "contains": true}
)

// dialect is what a schema's keywords say of it: gemini when any level
// uses a Type enum name, a keyword JSON Schema does not have (nullable,
// propertyOrdering) or one of Gemini's keywords in its snake_case proto
// name; beyond when one uses a keyword Gemini's Schema does not have
// (additionalProperties, $ref, ...).
type dialect struct{ gemini, beyond bool }

// geminiMarks are the strings one of which a schema in Gemini's dialect
// holds (a Type name, nullable, propertyOrdering, a snake_case keyword):
// a schema without any is JSON Schema, read no further (most are).
var geminiMarks = []string{`"OBJECT"`, `"STRING"`, `"ARRAY"`, `"INTEGER"`, `"NUMBER"`, `"BOOLEAN"`, `"NULL"`,
	`"TYPE_UNSPECIFIED"`, `"nullable"`, `"propertyOrdering"`, `"property_ordering"`, `"any_of"`, `"max_items"`,
	`"min_items"`, `"max_length"`, `"min_length"`, `"max_properties"`, `"min_properties"`}

// dialectOf reads the keywords of every level of a schema.
func dialectOf(schema []byte) dialect {
	var d dialect
	marked := false
	for _, m := range geminiMarks {
		marked = marked || bytes.Contains(schema, []byte(m))
	}
	if !marked {
		return d
	}
	eachSchema(schema, func(key string, value []byte) {
		name := jsonName(key)
		marks, known := geminiKeywords[name]
		d.gemini = d.gemini || marks || name != key && known
		d.beyond = d.beyond || !known
		if name == "type" {
			if s, ok := transcript.UnquoteBytes(value); ok {
				_, upper := geminiTypes[string(s)]
				d.gemini = d.gemini || upper
			}
		}
	})
	return d
}

// eachSchema calls fn with each keyword of the schema raw and of the
// schemas nested in it.
func eachSchema(raw []byte, fn func(key string, value []byte)) {
	o, err := transcript.ParseObject(raw)
	if err != nil {
		return
	}
	for _, f := range o.Fields {
		fn(f.Key, f.Value)
		switch key := jsonName(f.Key); {
		case schemaMembers[key]:
			m, _ := transcript.ParseObject(f.Value)
			for _, sub := range m.Fields {
				eachSchema(sub.Value, fn)
			}
		case schemaLists[key]:
			list, _ := transcript.ParseArray(f.Value)
			for _, sub := range list {
				eachSchema(sub, fn)
			}
		case schemaOne[key]:
			eachSchema(f.Value, fn)
		}
	}
}

// compactSchema returns the compact form of a tool's schema, or
// {"type":"object"} when the job gave none.
func compactSchema(t transcript.Tool) []byte {
	if s := bytes.TrimSpace(t.InputSchema); len(s) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, s) == nil {
			return buf.Bytes()
		}
	}
	return []byte(`{"type":"object"}`)
}

// toolSchema returns a tool's input schema as JSON Schema (jsonSchema), or
// {"type":"object"} when the job gave none.
func toolSchema(t transcript.Tool) []byte {
	s := compactSchema(t)
	if !dialectOf(s).gemini {
		return s
	}
	return jsonSchema(nil, s)
}

// geminiSchema returns the member a Gemini function declaration takes a
// tool's schema in, and the schema: a schema in Gemini's dialect that keeps
// within Gemini's Schema goes as it is in "parameters"; any other, JSON
// Schema or converted to it (a dialect mix Gemini's Schema refuses), in
// "parametersJsonSchema".
func geminiSchema(t transcript.Tool) (member string, schema []byte) {
	s := compactSchema(t)
	switch d := dialectOf(s); {
	case d.gemini && !d.beyond:
		return "parameters", s
	case d.gemini:
		return "parametersJsonSchema", jsonSchema(nil, s)
	}
	return "parametersJsonSchema", s
}

// jsonSchema appends the JSON Schema form of one level of a schema in
// Gemini's dialect, and of the levels nested in it:
//
//   - a Type name becomes its JSON Schema type (OBJECT → object;
//     TYPE_UNSPECIFIED → no type);
//   - "nullable": true allows null the JSON Schema way, which every JSON
//     Schema target takes: a type array ("type": ["string", "null"], as
//     OpenAI's structured-outputs guide writes an optional field), or, for
//     a level without a single type, {"type": "null"} added to its anyOf
//     (an anyOf made of the level when it has none); an enum gets null
//     among its values; "nullable": false is dropped;
//   - "example": x becomes "examples": [x]; "propertyOrdering" is dropped (a
//     JSON Schema object's properties keep their order in the body);
//   - snake_case keywords get their JSON names (any_of → anyOf).
//
// Property names, enum values, defaults and examples are the caller's and
// are kept as they are.
func jsonSchema(dst, raw []byte) []byte {
	o, err := transcript.ParseObject(raw)
	if err != nil {
		return append(dst, raw...) // true or false: a boolean schema
	}
	var typ []byte // the level's single type, a JSON string
	nullable := false
	var out transcript.Object
	for _, f := range o.Fields {
		key, value := jsonName(f.Key), f.Value
		switch {
		case key == "type":
			if s, ok := transcript.UnquoteBytes(value); ok {
				if t, upper := geminiTypes[string(s)]; upper {
					if t == "" {
						continue
					}
					value = transcript.JSONString(t)
				}
				typ = value
			}
		case key == "nullable":
			nullable = string(value) == "true"
			continue
		case key == "propertyOrdering":
			continue
		case key == "example":
			key, value = "examples", append(append([]byte{'['}, value...), ']')
		case schemaMembers[key]:
			if m, err := transcript.ParseObject(value); err == nil {
				for i := range m.Fields {
					m.Fields[i].Value = jsonSchema(nil, m.Fields[i].Value)
				}
				value = m.AppendJSON(nil)
			}
		case schemaLists[key]:
			if list, err := transcript.ParseArray(value); err == nil {
				value = []byte{'['}
				for i, sub := range list {
					if i > 0 {
						value = append(value, ',')
					}
					value = jsonSchema(value, sub)
				}
				value = append(value, ']')
			}
		case schemaOne[key]:
			value = jsonSchema(nil, value)
		}
		out.Fields = append(out.Fields, transcript.Field{Key: key, Value: value})
	}
	if nullable {
		allowNull(&out, typ)
	}
	return out.AppendJSON(dst)
}

// allowNull lets a converted schema level take null (jsonSchema): null
// added to its single type, else {"type":"null"} added to its anyOf (one
// made of the level when it has none), and null added to its enum.
func allowNull(o *transcript.Object, typ []byte) {
	if enum, ok := o.Get("enum"); ok {
		if list, err := transcript.ParseArray(enum); err == nil && !containsNull(list) {
			o.Set("enum", appendElement(enum, []byte("null")))
		}
	}
	switch any, hasAny := o.Get("anyOf"); {
	case typ != nil:
		if string(typ) != `"null"` {
			o.Set("type", appendElement([]byte{'[', ']'}, typ, []byte(`"null"`)))
		}
	case hasAny:
		o.Set("anyOf", appendElement(any, []byte(`{"type":"null"}`)))
	default:
		level := o.AppendJSON(nil)
		o.Fields = []transcript.Field{{Key: "anyOf", Value: appendElement([]byte{'[', ']'}, level, []byte(`{"type":"null"}`))}}
	}
}

// appendElement returns a copy of the JSON array arr with the values vs
// appended.
func appendElement(arr []byte, vs ...[]byte) []byte {
	arr = bytes.TrimSpace(arr)
	out := append([]byte(nil), arr[:len(arr)-1]...)
	for _, v := range vs {
		if len(bytes.TrimSpace(out)) > 1 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

// containsNull reports whether a list of JSON values holds null.
func containsNull(list [][]byte) bool {
	for _, e := range list {
		if string(bytes.TrimSpace(e)) == "null" {
			return true
		}
	}
	return false
}
