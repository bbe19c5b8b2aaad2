// Package deadletter owns the dead-letter format of design §2: the codes
// (Code, one typed enum for Outcomes, headers, metrics and the commands'
// summaries), the header names of a dead-letter record, and the building
// and reading of those headers.
//
// May import: no package of this module.
package deadletter
