// Package config holds the worker's settings: one struct per section of
// configs/worker.yaml, their defaults, strict YAML loading, HYGIENE_*
// environment overrides, validation, per-tenant overrides and the
// `worker config` command.
//
// The effective configuration is built in three steps, each of which can
// only make it stricter, never silently looser:
//
//  1. Default() gives every setting its documented default.
//  2. The YAML file (if any) is decoded over the defaults; an unknown key is
//     an error that names the key and its line.
//  3. Every environment variable that starts with HYGIENE_ overrides one
//     setting (HYGIENE_<SECTION>_<KEY>, nested keys joined by '_', e.g.
//     HYGIENE_KAFKA_TLS_ENABLED); a HYGIENE_ variable that names no setting
//     is an error.
//
// Validate then checks every value and names each bad one. The per-job
// sections (images, pruning, context) are package settings' types, and their range
// rules are settings.Validate, which this package runs over the global
// sections and each tenant's overlay.
//
// May import: internal/apikeys, internal/images, internal/settings,
// internal/transcript, internal/transport/kafka.
package config
