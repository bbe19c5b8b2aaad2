// Package integration runs the real worker binary against a Kafka broker
// over TCP: the embedded in-process broker always, and a real Apache Kafka
// broker when HYGIENE_KAFKA_BROKERS names one (scripts/kafka.sh starts it;
// with CI=true a missing broker fails the suite instead of skipping it).
//
// The tests kill workers with SIGKILL mid-stream, rebalance a group of
// several workers, restart the broker, and feed malformed records, and then
// check the at-least-once contract by job id: every input has a ready or a
// dead-letter record, and duplicates stay under the in-flight cap.
//
// Its tests import what they test.
//
// May import: no package of this module.
package integration
