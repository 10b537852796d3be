import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope } from './envelope.js';
import { EnvelopeError } from './errors.js';
import { envelopeRequest, environment, rawMultipart } from './test-support/envelopes.js';
import type { PlatformEvent } from './types.js';

const event: PlatformEvent = { type: 'space_content_updated', eventId: 'evt_1', spaceId: 's1', revisionId: 'r1' };

async function expectEnvelopeError(request: Request, status: number, message: RegExp) {
  const error = await decodeEnvelope(request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnvelopeError);
  expect((error as EnvelopeError).status).toBe(status);
  expect((error as EnvelopeError).message).toMatch(message);
}

describe('the envelope codec', () => {
  it('round-trips event and environment', async () => {
    const decoded = await decodeEnvelope(await envelopeRequest(event));
    expect(decoded).toEqual({ event, environment });
  });

  it('is multipart/form-data with the parts event, environment and fetch-body', async () => {
    const encoded = await encodeEnvelope({ event, environment, body: new TextEncoder().encode('raw') });
    expect(encoded.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const text = new TextDecoder().decode(encoded.body);
    expect(text).toMatch(/name="event"/);
    expect(text).toMatch(/name="environment"/);
    expect(text).toMatch(/name="fetch-body"/);
  });

  it('sends event and environment as plain form fields, so a runtime reading them as text works', async () => {
    const body = new Uint8Array([0, 255, 13, 10, 45, 45]);
    const unicode = { ...event, revisionId: 'r\u00e9\u2028\n"--' } as PlatformEvent;
    const encoded = await encodeEnvelope({ event: unicode, environment, body });
    const text = new TextDecoder().decode(encoded.body);
    expect(text).toMatch(/Content-Disposition: form-data; name="event"\r\n\r\n/);
    expect(text).toMatch(/Content-Disposition: form-data; name="environment"\r\n\r\n/);
    expect(text).not.toMatch(/filename="(event|environment)/);
    // What an integration written for another runtime does: formData(), get(), JSON.parse.
    const request = new Request('http://integration.test/v1', {
      method: 'POST',
      headers: encoded.headers,
      body: encoded.body as Uint8Array<ArrayBuffer>,
    });
    const form = await request.formData();
    const eventField = form.get('event');
    const environmentField = form.get('environment');
    expect(typeof eventField).toBe('string');
    expect(typeof environmentField).toBe('string');
    expect(JSON.parse(eventField as string)).toEqual(unicode);
    expect(JSON.parse(environmentField as string)).toEqual(environment);
    const fetchBody = form.get('fetch-body');
    expect(fetchBody).toBeInstanceOf(Blob);
    expect(new Uint8Array(await (fetchBody as Blob).arrayBuffer())).toEqual(body);
  });

  it('reads event and environment sent as file parts, as platforms before this one sent them', async () => {
    const request = rawMultipart([
      { name: 'event', filename: 'event.json', type: 'application/json', body: JSON.stringify(event) },
      {
        name: 'environment',
        filename: 'environment.json',
        type: 'application/json',
        body: JSON.stringify(environment),
      },
      { name: 'fetch-body', filename: 'body', type: 'application/octet-stream', body: 'raw' },
    ]);
    expect(await decodeEnvelope(request)).toEqual({ event, environment, body: new TextEncoder().encode('raw') });
  });

  it('carries every byte value of a binary body unchanged', async () => {
    const body = new Uint8Array(256 * 4).map((_, i) => i % 256);
    const decoded = await decodeEnvelope(await envelopeRequest(event, { body }));
    expect(decoded.body).toEqual(body);
  });

  it('round-trips any bytes and any JSON, whatever they contain', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.jsonValue(), fc.string(), async (body, value, text) => {
        const event = {
          type: 'space_view',
          eventId: text,
          spaceId: '--\r\n--boundary',
          extra: value,
        } as unknown as PlatformEvent;
        const decoded = await decodeEnvelope(await envelopeRequest(event, { body }));
        expect(decoded.body).toEqual(body);
        expect(decoded.event).toEqual(JSON.parse(JSON.stringify(event)));
      }),
      { numRuns: 150 },
    );
  });

  it('keeps an empty body apart from no body', async () => {
    expect((await decodeEnvelope(await envelopeRequest(event, { body: new Uint8Array() }))).body).toEqual(
      new Uint8Array(),
    );
    expect(await decodeEnvelope(await envelopeRequest(event))).not.toHaveProperty('body');
  });

  it('accepts a body sent as a plain text part', async () => {
    const request = rawMultipart([
      { name: 'event', body: JSON.stringify(event) },
      { name: 'environment', body: JSON.stringify(environment) },
      { name: 'fetch-body', body: 'héllo' },
    ]);
    expect((await decodeEnvelope(request)).body).toEqual(new TextEncoder().encode('héllo'));
  });

  it('refuses a request that is not multipart/form-data', async () => {
    const request = new Request('http://x/v1', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    await expectEnvelopeError(
      request,
      400,
      /multipart\/form-data with a boundary, but the content type is "application\/json"/,
    );
    await expectEnvelopeError(new Request('http://x/v1', { method: 'POST', body: 'x' }), 400, /content type is/);
  });

  it('refuses malformed multipart', async () => {
    const request = new Request('http://x/v1', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nthis is not a part\r\n',
    });
    await expectEnvelopeError(request, 400, /not valid multipart\/form-data/);
  });

  it('refuses a missing event or environment part', async () => {
    await expectEnvelopeError(
      rawMultipart([{ name: 'environment', body: JSON.stringify(environment) }]),
      400,
      /has no `event` part/,
    );
    await expectEnvelopeError(
      rawMultipart([{ name: 'event', body: JSON.stringify(event) }]),
      400,
      /has no `environment` part/,
    );
  });

  it('refuses invalid JSON, a non-object, and an event without a type', async () => {
    const env = { name: 'environment', body: JSON.stringify(environment) };
    await expectEnvelopeError(
      rawMultipart([{ name: 'event', body: '{"type":' }, env]),
      400,
      /`event` part is not valid JSON/,
    );
    await expectEnvelopeError(
      rawMultipart([{ name: 'event', body: '[1,2]' }, env]),
      400,
      /`event` part must be a JSON object/,
    );
    await expectEnvelopeError(
      rawMultipart([{ name: 'event', body: '{"eventId":"x"}' }, env]),
      400,
      /`event` part has no `type`/,
    );
    await expectEnvelopeError(
      rawMultipart([
        { name: 'event', body: JSON.stringify(event) },
        { name: 'environment', body: 'null' },
      ]),
      400,
      /`environment` part must be a JSON object/,
    );
  });

  it('refuses a part over its size limit with 400 envelope_too_large', async () => {
    const big = { ...event, padding: 'x'.repeat(2000) } as PlatformEvent;
    const request = await envelopeRequest(big);
    const error = await decodeEnvelope(request, { maxJsonPartBytes: 1000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      code: 'envelope_too_large',
      message: expect.stringMatching(/`event` part is larger than 1000 bytes/),
    });
  });

  it('refuses a body over the limit with 400 envelope_too_large', async () => {
    const request = await envelopeRequest(event, { body: new Uint8Array(5000) });
    const error = await decodeEnvelope(request, { maxBodyBytes: 4000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      code: 'envelope_too_large',
      message: expect.stringMatching(/`fetch-body` part is 5000 bytes; the limit is 4000/),
    });
  });

  it('stops reading a request far over the limits', async () => {
    const huge = new Request('http://x/v1', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      body: new Uint8Array(3 * 1024 * 1024),
    });
    const error = await decodeEnvelope(huge, { maxJsonPartBytes: 1024, maxBodyBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'envelope_too_large' });
  });
});
