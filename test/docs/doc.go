// Package docs checks that the documentation matches the code: each
// `file:function` that docs/architecture.md names (the walk of one job,
// from the Kafka source to the sink) is a function, or a method with its
// receiver's type, that the file declares. The test parses the named files;
// it builds nothing.
//
// May import: no package of this module.
package docs
