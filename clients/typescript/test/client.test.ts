// The client against a running worker (HYGIENE_BOOTSTRAP, default the
// embedded broker of `worker run` on 127.0.0.1:9092).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client, jobFromRequest, SchemaError, Schemas, type Target } from "../src/client.ts";

const examples = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples");
const gemini: Target = { provider: "google", api: "google-generative-ai", model: "gemini-2.5-pro" };

/** A damaged Anthropic Messages request body, as an app stores it. */
function anthropicBody(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(examples, "from-anthropic-damaged.json"), "utf8")).request;
}

const client = new Client({ brokers: [process.env.HYGIENE_BOOTSTRAP ?? "127.0.0.1:9092"] });
before(() => client.connect());
after(() => client.close());

test("a request body comes back ready for another provider", async () => {
  const job = jobFromRequest(anthropicBody(), "anthropic-messages", gemini, "acme", "agent:main:ts:1", {
    options: { source: "anthropic/anthropic-messages/claude-sonnet-4-5" },
  });
  const answer = await client.sanitize(job);
  assert.ok(answer.ready, JSON.stringify(answer));
  assert.equal(answer.payload.job_id, job.job_id);
  assert.equal(answer.payload.input_format, "anthropic-messages");
  assert.equal(answer.payload.request_format, "gemini-generate-content");
  assert.ok(answer.payload.request.contents.length > 0);
  assert.equal(answer.payload.report.changed, true);
});

test("the same job gives the same bytes", async () => {
  const job = jobFromRequest(anthropicBody(), "anthropic", gemini, "acme", "agent:main:ts:2", { jobId: "ts-same-1" });
  const first = await client.sanitize(job);
  const second = await client.sanitize(job);
  assert.ok(first.ready && second.ready);
  assert.deepEqual(first.payload, second.payload);
});

test("a wrong job is refused by the schema and by the worker", async () => {
  const job = jobFromRequest(anthropicBody(), "anthropic", gemini, "acme", "agent:main:ts:3", { options: { now: 1776000900000 } });
  assert.throws(() => client.schemas.validate("job", job), (err: unknown) => err instanceof SchemaError && err.message.includes("now"));
  const answer = await client.sanitize(job, { validate: false });
  assert.ok(!answer.ready);
  assert.equal(answer.code, "invalid_job");
  assert.match(answer.deadLetter.headers["hygiene-error"], /options/);
  assert.equal((answer.deadLetter.value as { job_id: string }).job_id, job.job_id);
});

test("the schemas refuse what they should", () => {
  const schemas = new Schemas();
  assert.throws(() => schemas.validate("payload", { job_id: "x" }), SchemaError);
  assert.throws(() => schemas.validate("deadletter", { headers: { "hygiene-error-code": "oops" }, value: null }), SchemaError);
});
