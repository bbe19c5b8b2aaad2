"""The client against a running worker (HYGIENE_BOOTSTRAP, default the
embedded broker of `worker run` on 127.0.0.1:9092)."""

import json
import os
from pathlib import Path

import jsonschema
import pytest

import hygiene_client

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GEMINI = {"provider": "google", "api": "google-generative-ai", "model": "gemini-2.5-pro"}


@pytest.fixture(scope="module")
def client():
    c = hygiene_client.Client(os.environ.get("HYGIENE_BOOTSTRAP", "127.0.0.1:9092"))
    yield c
    c.close()


def anthropic_body():
    """A damaged Anthropic Messages request body, as an app stores it."""
    return json.loads((EXAMPLES / "from-anthropic-damaged.json").read_text())["request"]


def test_a_request_body_comes_back_ready_for_another_provider(client):
    job = hygiene_client.job_from_request(
        anthropic_body(), "anthropic-messages", GEMINI, "acme", "agent:main:py:1",
        options={"source": "anthropic/anthropic-messages/claude-sonnet-4-5"},
    )
    answer = client.sanitize(job)
    assert answer.ready, answer.dead_letter
    payload = answer.payload
    assert payload["job_id"] == job["job_id"]
    assert payload["input_format"] == "anthropic-messages"
    assert payload["request_format"] == "gemini-generate-content"
    assert payload["request"]["contents"], "the Gemini body has the history"
    assert payload["report"]["changed"] is True


def test_the_same_job_gives_the_same_bytes(client):
    job = hygiene_client.job_from_request(anthropic_body(), "anthropic", GEMINI, "acme", "agent:main:py:2", job_id="py-same-1")
    first, second = client.sanitize(job), client.sanitize(job)
    assert first.ready and second.ready
    assert json.dumps(first.payload) == json.dumps(second.payload)


def test_a_wrong_job_is_refused_by_the_schema_and_by_the_worker(client):
    job = hygiene_client.job_from_request(
        anthropic_body(), "anthropic", GEMINI, "acme", "agent:main:py:3", options={"now": 1776000900000},
    )
    with pytest.raises(jsonschema.ValidationError) as refused:
        client.schemas.validate("job", job)
    assert "now" in refused.value.message
    answer = client.sanitize(job, validate=False)
    assert not answer.ready
    assert answer.code == "invalid_job"
    assert "options" in answer.dead_letter["headers"]["hygiene-error"]
    assert answer.dead_letter["value"]["job_id"] == job["job_id"]


def test_the_schemas_refuse_what_they_should():
    schemas = hygiene_client.Schemas()
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("payload", {"job_id": "x"})
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("deadletter", {"headers": {"hygiene-error-code": "oops"}, "value": None})
