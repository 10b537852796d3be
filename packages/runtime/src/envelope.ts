/**
 * The envelope codec (spec 2.7, 4.1): the platform encodes, the SDK decodes, both with this one
 * module. An envelope is `multipart/form-data` with the parts `event` (JSON), `environment`
 * (JSON), both plain form fields, and, for requests to the public endpoint, `fetch-body` (a file
 * part with the unmodified bytes). The decoder also reads `event` and `environment` sent as file
 * parts, the form platforms before this one used.
 * It uses Web APIs only (FormData, Response, Blob), so it runs in Node, workerd, Deno and Bun.
 */
import { EnvelopeError } from './errors.js';
import type { Environment, PlatformEvent } from './types.js';

export const ENVELOPE_VERSION = 'v1';
export const SUPPORTED_VERSIONS: readonly string[] = [ENVELOPE_VERSION];

export interface EnvelopeLimits {
  /** Largest `event` or `environment` part, in bytes (default 1 MiB). */
  maxJsonPartBytes: number;
  /** Largest `fetch-body`, in bytes (default 10 MiB). */
  maxBodyBytes: number;
}

export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = {
  maxJsonPartBytes: 1024 * 1024,
  maxBodyBytes: 10 * 1024 * 1024,
};

/** Room for part headers and boundaries on top of the parts themselves. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

export interface Envelope<E extends PlatformEvent = PlatformEvent> {
  event: E;
  environment: Environment;
  /** The unmodified request body, when there is one. */
  body?: Uint8Array;
}

export interface EncodedEnvelope {
  headers: Record<string, string>;
  body: Uint8Array;
}

const encoder = new TextEncoder();

/**
 * The request body and headers of an envelope, to POST to the integration at `/v1`.
 * Written directly as RFC 7578 multipart (a random 128-bit boundary): several times faster than
 * serialising a FormData, and read back by any standard multipart parser. `event` and
 * `environment` are plain form fields (JSON text, no filename), so `formData.get('event')` is a
 * string in every runtime; `fetch-body` is a file part holding the raw bytes. JSON text never
 * holds a raw line break, so it cannot contain the boundary's delimiter.
 */
export async function encodeEnvelope(envelope: Envelope): Promise<EncodedEnvelope> {
  const boundary = `portico-${hex(crypto.getRandomValues(new Uint8Array(16)))}`;
  const field = (name: string) =>
    encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`);
  const crlf = encoder.encode('\r\n');
  const parts: Uint8Array[] = [
    field('event'),
    encoder.encode(JSON.stringify(envelope.event)),
    crlf,
    field('environment'),
    encoder.encode(JSON.stringify(envelope.environment)),
    crlf,
  ];
  if (envelope.body !== undefined) {
    parts.push(
      encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="fetch-body"; filename="body"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      envelope.body,
      crlf,
    );
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Reads an envelope from a request. Throws EnvelopeError (400) for a body that is not
 * multipart/form-data, malformed multipart, a missing `event` or `environment` part, a part that
 * is not a JSON object, an event without a `type`, or a part over the size limits (code
 * `envelope_too_large`; reading stops at the limit).
 */
export async function decodeEnvelope(request: Request, limits: Partial<EnvelopeLimits> = {}): Promise<Envelope> {
  const { maxJsonPartBytes, maxBodyBytes } = { ...DEFAULT_ENVELOPE_LIMITS, ...limits };
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType)) {
    throw new EnvelopeError(
      `an envelope is multipart/form-data with a boundary, but the content type is ${contentType === '' ? 'missing' : `"${contentType}"`}`,
    );
  }
  const total = 2 * maxJsonPartBytes + maxBodyBytes + MULTIPART_OVERHEAD_BYTES;
  const raw = await readAtMost(request, total);
  if (raw === undefined) throw new EnvelopeError(`the envelope is larger than ${total} bytes`, 'envelope_too_large');

  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new EnvelopeError(
      `the envelope is not valid multipart/form-data: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const event = await jsonPart(form, 'event', maxJsonPartBytes);
  if (typeof event.type !== 'string' || event.type === '') {
    throw new EnvelopeError('the `event` part has no `type`');
  }
  const environment = await jsonPart(form, 'environment', maxJsonPartBytes);
  const bodyPart = form.get('fetch-body');
  let body: Uint8Array | undefined;
  if (bodyPart !== null) {
    body = typeof bodyPart === 'string' ? encoder.encode(bodyPart) : new Uint8Array(await bodyPart.arrayBuffer());
    if (body.length > maxBodyBytes) {
      throw new EnvelopeError(
        `the \`fetch-body\` part is ${body.length} bytes; the limit is ${maxBodyBytes}`,
        'envelope_too_large',
      );
    }
  }
  return {
    event: event as unknown as PlatformEvent,
    environment: environment as unknown as Environment,
    ...(body !== undefined ? { body } : {}),
  };
}

async function jsonPart(form: FormData, name: string, maxBytes: number): Promise<Record<string, unknown>> {
  const part = form.get(name);
  if (part === null) throw new EnvelopeError(`the envelope has no \`${name}\` part`);
  const text = typeof part === 'string' ? part : await part.text();
  if (encoder.encode(text).length > maxBytes) {
    throw new EnvelopeError(`the \`${name}\` part is larger than ${maxBytes} bytes`, 'envelope_too_large');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EnvelopeError(
      `the \`${name}\` part is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EnvelopeError(`the \`${name}\` part must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** The body of a request or response, or undefined as soon as it exceeds `limit` (reading stops there). */
export async function readAtMost(
  message: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const declared = Number(message.headers.get('content-length') ?? '0');
  if (declared > limit) {
    await message.body?.cancel();
    return undefined;
  }
  if (message.body === null) return new Uint8Array();
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
