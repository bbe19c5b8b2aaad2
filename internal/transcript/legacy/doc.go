// Package legacy is the codec and message model of package transcript as
// they were before the tape (issue 22), kept only while a test holds the
// tape's output to theirs (TestTapeMatchesLegacyDecoder); it is deleted with
// that test.
package legacy
