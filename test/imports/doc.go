// Package imports checks the import graph of the module against the rule
// each package doc states in its "May import:" line: a package imports
// only what its line names, so an import that runs back up the house (a
// back-arrow) fails the test, and the lines themselves allow no cycle.
// The test reads `go list` and the package docs; it builds nothing.
//
// May import: no package of this module.
package imports
