// Package deadletter owns the dead-letter format of design §2, the one
// place a reader finds what a dead letter says and how:
//
//   - the codes (Code: one typed enum for Outcomes, headers, metrics and the
//     commands' summaries, `worker replay` and `worker audit` included);
//   - the headers of a dead-letter record (hygiene-error-code,
//     hygiene-error, hygiene-stage, hygiene-source), built by Record and read
//     back by Read, and Original, the job a letter was made from;
//   - the stand-in for an original too large for the dead-letter topic
//     (StandIn: its first bytes, with the original's length and sha256), which
//     Original refuses to give back as the job;
//   - the sentence rules: hygiene-error is one sentence naming the field or
//     message index; a bug's adds the first frames of its stack on the lines
//     after it (WithStack), and what a summary or a response shows is the
//     sentence alone (Sentence).
//
// It sits low in the house: the model's decode errors carry a Code, so it
// imports only the record type.
//
// May import: internal/transport.
package deadletter
