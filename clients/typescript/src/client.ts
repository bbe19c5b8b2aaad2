// A small Kafka client of the hygiene worker (kafkajs). It builds a job from
// a provider request body, produces it to hygiene.jobs keyed
// tenant/session_id, and reads the job's answer: its ready payload on
// hygiene.ready or its dead letter on hygiene.dlq. Each record is validated
// against the worker's published JSON Schemas (docs/schemas, or
// `worker schema job|payload|deadletter`) with Ajv's draft 2020-12 validator,
// so a wrong field shows before the job is sent, not as a dead letter.

import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { decompress } from "fzstd";
import { Kafka, logLevel, Partitioners, type Consumer, type IHeaders, type KafkaMessage, type Producer } from "kafkajs";

export const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "schemas");

export type SchemaName = "job" | "payload" | "deadletter";

/** A record a schema refused, with the validator's errors. */
export class SchemaError extends Error {
  constructor(
    readonly schema: SchemaName,
    readonly errors: ErrorObject[],
  ) {
    super(`not a valid ${schema}: ${errors.map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`).join("; ")}`);
  }
}

/** The three published schemas, compiled so the payload's references into the job schema resolve. */
export class Schemas {
  private readonly validators = new Map<SchemaName, ValidateFunction>();

  constructor(dir: string = SCHEMA_DIR) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const names: SchemaName[] = ["job", "payload", "deadletter"];
    const docs = names.map((name) => JSON.parse(readFileSync(join(dir, `${name}.schema.json`), "utf8")));
    for (const doc of docs) ajv.addSchema(doc);
    names.forEach((name, i) => this.validators.set(name, ajv.getSchema(docs[i].$id)!));
  }

  /** Throws a SchemaError when value is not a valid `name`. */
  validate(name: SchemaName, value: unknown): void {
    const validate = this.validators.get(name)!;
    if (!validate(value)) throw new SchemaError(name, validate.errors ?? []);
  }
}

export interface Target {
  provider: string;
  api: string;
  model: string;
}

export interface Job {
  job_id: string;
  tenant: string;
  session_id: string;
  target: Target;
  options?: Record<string, unknown>;
  request_format?: string;
  request?: Record<string, unknown>;
  messages?: unknown[];
}

/** A job whose history is a provider request body, to be repaired for target. */
export function jobFromRequest(
  body: Record<string, unknown>,
  requestFormat: string,
  target: Target,
  tenant: string,
  sessionId: string,
  opts: { jobId?: string; options?: Record<string, unknown> } = {},
): Job {
  const job: Job = { job_id: opts.jobId ?? randomUUID(), tenant, session_id: sessionId, target, request_format: requestFormat, request: body };
  if (opts.options) job.options = opts.options;
  return job;
}

/** The record key: jobs of one session are processed in order. */
export function recordKey(job: Job): string {
  return `${job.tenant}/${job.session_id}`;
}

/** The dead-letter record as the schema describes it. */
export interface DeadLetter {
  key: string | null;
  headers: Record<string, string>;
  value: unknown;
}

export type Answer = { ready: true; payload: Record<string, any> } | { ready: false; deadLetter: DeadLetter; code: string };

export interface ClientConfig {
  brokers: string[];
  schemas?: Schemas;
  jobsTopic?: string;
  readyTopic?: string;
  dlqTopic?: string;
}

const zstdMagic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

function headersOf(h: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

/** The value decompressed when it is zstd (payloads above kafka.compress_above_bytes). */
function plain(value: Buffer, headers: Record<string, string>): Buffer {
  if (headers["content-encoding"] === "zstd" || value.subarray(0, 4).equals(zstdMagic)) return Buffer.from(decompress(value));
  return value;
}

function jsonOrText(value: Buffer): unknown {
  const text = value.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return Buffer.from(text, "utf8").equals(value) ? text : null;
  }
}

/** Produces jobs and reads their answers on one Kafka cluster. */
export class Client {
  readonly schemas: Schemas;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly jobsTopic: string;
  private readonly readyTopic: string;
  private readonly dlqTopic: string;

  constructor(cfg: ClientConfig) {
    this.schemas = cfg.schemas ?? new Schemas();
    this.kafka = new Kafka({ clientId: "hygiene-client", brokers: cfg.brokers, logLevel: logLevel.WARN });
    // The Java client's murmur2 partitioner (librdkafka's murmur2_random):
    // every producer of a session's jobs must pick the same partition for
    // its key, or the worker cannot keep them in order.
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    this.jobsTopic = cfg.jobsTopic ?? "hygiene.jobs";
    this.readyTopic = cfg.readyTopic ?? "hygiene.ready";
    this.dlqTopic = cfg.dlqTopic ?? "hygiene.dlq";
  }

  async connect(): Promise<void> {
    await this.producer.connect();
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }

  /** Produces job and waits for its answer; with validate (the default) the job is checked against the job schema first. */
  async sanitize(job: Job, opts: { validate?: boolean; timeoutMs?: number } = {}): Promise<Answer> {
    if (opts.validate ?? true) this.schemas.validate("job", job);
    const value = Buffer.from(JSON.stringify(job));
    const consumer = this.kafka.consumer({ groupId: `hygiene-client-${randomUUID()}` });
    try {
      // The consumer starts at the current end of the ready and dead-letter
      // topics before the job is produced, so no answer is missed.
      const admin = this.kafka.admin();
      await admin.connect();
      const ends = await Promise.all([this.readyTopic, this.dlqTopic].map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })));
      await admin.disconnect();
      await consumer.connect();
      await consumer.subscribe({ topics: [this.readyTopic, this.dlqTopic] });
      const { answer, started } = this.awaitAnswer(consumer, job, value, opts.timeoutMs ?? 30_000);
      await started;
      for (const { topic, offsets } of ends) {
        for (const o of offsets) consumer.seek({ topic, partition: o.partition, offset: o.high });
      }
      await this.producer.send({ topic: this.jobsTopic, acks: -1, messages: [{ key: recordKey(job), value }] });
      return await answer;
    } finally {
      await consumer.disconnect();
    }
  }

  /** The job's answer, read by consumer, which it runs (started: once it runs). */
  private awaitAnswer(consumer: Consumer, job: Job, value: Buffer, timeoutMs: number): { answer: Promise<Answer>; started: Promise<void> } {
    const key = recordKey(job);
    const digest = createHash("sha256").update(value).digest("hex");
    let started: Promise<void> = Promise.resolve();
    const answer = new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for job ${job.job_id} in ${timeoutMs} ms`)), timeoutMs);
      const settle = (answer: Answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      started = consumer.run({
        eachMessage: async ({ topic, message }: { topic: string; message: KafkaMessage }) => {
          if (message.key?.toString() !== key || message.value === null) return;
          const headers = headersOf(message.headers);
          try {
            if (topic === this.readyTopic) {
              const payload = JSON.parse(plain(message.value, headers).toString("utf8"));
              if (payload.job_id !== job.job_id) return;
              this.schemas.validate("payload", payload);
              settle({ ready: true, payload });
              return;
            }
            // A dead letter holds the job's value byte for byte, or for a stand-in the sha256 of it.
            if (!message.value.equals(value) && headers["hygiene-original-sha256"] !== digest) return;
            const deadLetter: DeadLetter = { key, headers, value: jsonOrText(message.value) };
            this.schemas.validate("deadletter", deadLetter);
            settle({ ready: false, deadLetter, code: headers["hygiene-error-code"] });
          } catch (err) {
            clearTimeout(timer);
            reject(err);
          }
        },
      });
      started.catch(reject);
    });
    return { answer, started };
  }
}
