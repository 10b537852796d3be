/**
 * What a worker or a remote integration sends back is checked here: a frame that does not parse
 * is a crash, lines are bounded again, an unknown level reads as `log`, an unframed answer is
 * taken as it is.
 */
import { describe, expect, it } from 'vitest';
import { HostError } from './host.js';
import { parseLogLines, unframe } from './output.js';

function framed(body: string, meta: unknown): Response {
  const bytes = new TextEncoder().encode(body);
  const json = new TextEncoder().encode(JSON.stringify(meta));
  const all = new Uint8Array(bytes.length + json.length + 4);
  all.set(bytes);
  all.set(json, bytes.length);
  new DataView(all.buffer).setUint32(bytes.length + json.length, json.length);
  return new Response(all, { headers: { 'x-portico-framed': '1' } });
}

describe('unframe', () => {
  it('takes the answer and its lines out of a frame', async () => {
    const answer = await unframe(
      framed('hello', { status: 204, headers: [['x-a', 'b']], logs: [{ level: 'shout', message: 'hi' }] }),
    );
    expect(answer).toEqual({
      status: 204,
      headers: [['x-a', 'b']],
      body: new TextEncoder().encode('hello'),
      logs: [{ level: 'log', message: 'hi' }],
    });
  });

  it('takes an unframed answer as it is, with no lines', async () => {
    const answer = await unframe(new Response('plain', { status: 201, headers: { 'x-a': 'b' } }));
    expect(answer.status).toBe(201);
    expect(new TextDecoder().decode(answer.body)).toBe('plain');
    expect(answer.logs).toEqual([]);
  });

  it.each([
    [
      'a length past the body',
      () => new Response(new Uint8Array([0, 0, 1, 0]), { headers: { 'x-portico-framed': '1' } }),
    ],
    ['no length at all', () => new Response(new Uint8Array([1]), { headers: { 'x-portico-framed': '1' } })],
    ['a status no Response has', () => framed('', { status: 42, headers: [], logs: [] })],
    ['headers that are not pairs of strings', () => framed('', { status: 200, headers: [['a', 1]], logs: [] })],
    ['lines that are not lines', () => framed('', { status: 200, headers: [], logs: [{ level: 'log' }] })],
  ])('refuses a frame with %s as a crash', async (_, response) => {
    const error = await unframe(response()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect(error).toMatchObject({ failure: 'crashed', message: expect.stringMatching(/does not parse/) });
  });
});

describe('parseLogLines', () => {
  it('bounds a list past 200 lines again, with its dropped line', () => {
    const lines = parseLogLines(Array.from({ length: 500 }, (_, i) => ({ level: 'info', message: `l${i}` })));
    expect(lines).toHaveLength(201);
    expect(lines?.[200]?.message).toMatch(/^… 300 more lines dropped/);
  });

  it('keeps a list the collector bounded as it is', () => {
    const sent = [
      ...Array.from({ length: 200 }, (_, i) => ({ level: 'log', message: `l${i}` })),
      { level: 'warn', message: '… 5 more lines dropped (a dispatch keeps its first 200 lines and 64 KiB of output)' },
    ];
    expect(parseLogLines(sent)).toEqual(sent);
  });
});
