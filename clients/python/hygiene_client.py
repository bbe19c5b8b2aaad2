"""A small Kafka client of the hygiene worker.

It builds a job from a provider request body (an Anthropic, OpenAI, Gemini,
Bedrock or Mistral request as the app already stores it), produces it to
hygiene.jobs keyed tenant/session_id, and reads the job's answer: its ready
payload on hygiene.ready, or its dead letter on hygiene.dlq. Each record is
validated against the worker's published JSON Schemas (docs/schemas, or
`worker schema job|payload|deadletter`), so a wrong field shows here, before
the job is sent, not as a dead letter.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import zstandard
from confluent_kafka import Consumer, Producer, TopicPartition

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schemas"

HEADER_ERROR_CODE = "hygiene-error-code"
HEADER_ORIGINAL_SHA256 = "hygiene-original-sha256"


class Schemas:
    """The three published schemas, compiled with draft 2020-12 validators
    that resolve the payload's references into the job schema."""

    def __init__(self, directory: Path = SCHEMA_DIR) -> None:
        docs = {
            name: json.loads((directory / f"{name}.schema.json").read_text())
            for name in ("job", "payload", "deadletter")
        }
        registry = referencing.Registry().with_resources(
            (doc["$id"], referencing.Resource.from_contents(doc)) for doc in docs.values()
        )
        self.validators = {
            name: jsonschema.Draft202012Validator(doc, registry=registry, format_checker=jsonschema.FormatChecker())
            for name, doc in docs.items()
        }
        for doc in docs.values():
            jsonschema.Draft202012Validator.check_schema(doc)

    def validate(self, name: str, instance: Any) -> None:
        """Raises jsonschema.ValidationError (the most relevant error) when
        instance is not a valid `name` (job, payload or deadletter)."""
        error = jsonschema.exceptions.best_match(self.validators[name].iter_errors(instance))
        if error is not None:
            raise error


def job_from_request(
    body: dict[str, Any],
    request_format: str,
    target: dict[str, str],
    tenant: str,
    session_id: str,
    *,
    job_id: str | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A job whose history is a provider request body (request_format +
    request) to be repaired for target."""
    job: dict[str, Any] = {
        "job_id": job_id or str(uuid.uuid4()),
        "tenant": tenant,
        "session_id": session_id,
        "target": target,
        "request_format": request_format,
        "request": body,
    }
    if options:
        job["options"] = options
    return job


def record_key(job: dict[str, Any]) -> bytes:
    """The record key: jobs of one session are processed in order."""
    return f"{job['tenant']}/{job['session_id']}".encode()


@dataclass
class Answer:
    """A job's answer: its ready payload, or its dead letter (code, headers
    and the value as the schema's JSON form of the record)."""

    ready: bool
    payload: dict[str, Any] | None = None
    dead_letter: dict[str, Any] | None = None

    @property
    def code(self) -> str | None:
        return None if self.dead_letter is None else self.dead_letter["headers"][HEADER_ERROR_CODE]


def _headers(msg) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in msg.headers() or []:
        out.setdefault(key, (value or b"").decode("utf-8", "replace"))
    return out


def _value(raw: bytes, headers: dict[str, str]) -> bytes:
    """The value decompressed when its content-encoding is zstd (the worker
    compresses payloads above kafka.compress_above_bytes)."""
    if headers.get("content-encoding") == "zstd" or raw[:4] == b"\x28\xb5\x2f\xfd":
        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=256 << 20)
    return raw


class Client:
    """Produces jobs and reads their answers on one Kafka cluster."""

    def __init__(
        self,
        bootstrap: str,
        schemas: Schemas | None = None,
        jobs_topic: str = "hygiene.jobs",
        ready_topic: str = "hygiene.ready",
        dlq_topic: str = "hygiene.dlq",
    ) -> None:
        self.bootstrap = bootstrap
        self.schemas = schemas or Schemas()
        self.jobs_topic, self.ready_topic, self.dlq_topic = jobs_topic, ready_topic, dlq_topic
        # murmur2_random is the Java client's partitioner (and kafkajs's):
        # every producer of a session's jobs must pick the same partition
        # for its key, or the worker cannot keep them in order.
        self.producer = Producer({
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "partitioner": "murmur2_random",
        })

    def sanitize(self, job: dict[str, Any], *, validate: bool = True, timeout: float = 30.0) -> Answer:
        """Produces job and waits for its answer. With validate the job is
        checked against the job schema first (jsonschema.ValidationError)."""
        if validate:
            self.schemas.validate("job", job)
        # ASCII with escapes: a history may hold a lone surrogate (which the
        # worker repairs), and UTF-8 cannot encode it.
        value = json.dumps(job, separators=(",", ":")).encode()
        consumer = self._consumer_at_end()
        try:
            self.producer.produce(self.jobs_topic, key=record_key(job), value=value)
            if self.producer.flush(timeout) > 0:
                raise TimeoutError("the job was not acknowledged")
            return self._await(consumer, job, value, timeout)
        finally:
            consumer.close()

    def _consumer_at_end(self) -> Consumer:
        """A consumer of the ready and dead-letter topics at their current
        end, assigned before the job is produced so no answer is missed."""
        consumer = Consumer({
            "bootstrap.servers": self.bootstrap,
            "group.id": f"hygiene-client-{uuid.uuid4()}",
            "enable.auto.commit": False,
        })
        parts = []
        metadata = consumer.list_topics(timeout=10)
        for topic in (self.ready_topic, self.dlq_topic):
            for p in metadata.topics[topic].partitions:
                _, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
                parts.append(TopicPartition(topic, p, high))
        consumer.assign(parts)
        return consumer

    def _await(self, consumer: Consumer, job: dict[str, Any], value: bytes, timeout: float) -> Answer:
        key = record_key(job)
        digest = hashlib.sha256(value).hexdigest()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None or msg.key() != key:
                continue
            if msg.error():
                raise RuntimeError(msg.error())
            headers = _headers(msg)
            if msg.topic() == self.ready_topic:
                payload = json.loads(_value(msg.value(), headers))
                if payload.get("job_id") != job["job_id"]:
                    continue
                self.schemas.validate("payload", payload)
                return Answer(ready=True, payload=payload)
            # A dead letter holds the job's value byte for byte, or for a
            # stand-in the sha256 of it.
            if msg.value() != value and headers.get(HEADER_ORIGINAL_SHA256) != digest:
                continue
            letter = {"key": key.decode(), "headers": headers, "value": _json_or_text(msg.value())}
            self.schemas.validate("deadletter", letter)
            return Answer(ready=False, dead_letter=letter)
        raise TimeoutError(f"no answer for job {job['job_id']} in {timeout} s")

    def close(self) -> None:
        self.producer.flush(10)


def _json_or_text(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        try:
            return raw.decode()
        except UnicodeDecodeError:
            return None
