/** The rules of an installation's own delivery headers, and their text form. */
import { describe, expect, it } from 'vitest';
import { customHeaderProblems, MAX_CUSTOM_HEADERS, parseHeaderLines } from './custom-headers.js';

describe('customHeaderProblems', () => {
  it('accepts ordinary names and values', () => {
    expect(
      customHeaderProblems({ Authorization: 'Bearer abc.def', 'X-Tenant-Id': 'acme', Cookie: 'a=1; b=2' }),
    ).toEqual([]);
  });

  it.each([
    ['X-Platform-Signature', /platform's own headers/],
    ['x-platform-delivery-id', /platform's own headers/],
    ['webhook-signature', /platform's own headers/],
    ['Webhook-Anything', /platform's own headers/],
    ['Content-Type', /set by the platform/],
    ['content-length', /set by the platform/],
    ['Host', /set by the platform/],
    ['User-Agent', /set by the platform/],
    ['Transfer-Encoding', /set by the platform/],
    ['Bad Name', /not a header name/],
    ['Bad:Name', /not a header name/],
    ['', /not a header name/],
  ])('refuses the name %j', (name, message) => {
    const problems = customHeaderProblems({ [name]: 'v' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).toContain(`"${name}"`);
  });

  it.each([
    ['a line break', 'a\r\nInjected: yes'],
    ['a newline', 'a\nb'],
    ['a NUL', 'a\u0000b'],
    ['non-ASCII text', 'café'],
    ['nothing', ''],
    ['leading spaces', ' padded'],
  ])('refuses a value with %s', (_label, value) => {
    expect(customHeaderProblems({ 'X-Ok': value })).toEqual([expect.stringMatching(/^the value of "X-Ok" must be/)]);
  });

  it('refuses a value that is not a string, twice the same name, too many and too large', () => {
    expect(customHeaderProblems({ 'X-N': 42 })).toEqual(['the value of "X-N" must be a string']);
    expect(customHeaderProblems({ 'X-A': '1', 'x-a': '2' })).toEqual([expect.stringMatching(/given twice/)]);
    const many = Object.fromEntries(Array.from({ length: MAX_CUSTOM_HEADERS + 1 }, (_, i) => [`X-H${i}`, 'v']));
    expect(customHeaderProblems(many)).toEqual([`21 headers are too many: at most ${MAX_CUSTOM_HEADERS}`]);
    expect(customHeaderProblems({ 'X-Big': 'x'.repeat(5000) })).toEqual([expect.stringMatching(/at most 4096 in all/)]);
  });
});

describe('parseHeaderLines', () => {
  it('reads one "Name: value" per line, trimming, skipping blank lines, keeping colons in values', () => {
    expect(parseHeaderLines('Authorization: Bearer a:b\r\n\n  X-Tenant-Id :acme  \n')).toEqual({
      headers: { Authorization: 'Bearer a:b', 'X-Tenant-Id': 'acme' },
      problems: [],
    });
    expect(parseHeaderLines('')).toEqual({ headers: {}, problems: [] });
  });

  it('says which line is wrong, and applies the rules', () => {
    expect(parseHeaderLines('X-A: 1\nno colon here').problems).toEqual([
      'line 2 ("no colon here") is not "Name: value"',
    ]);
    expect(parseHeaderLines('X-A: 1\nx-a: 2').problems).toEqual([expect.stringMatching(/"x-a" is given twice/)]);
    expect(parseHeaderLines('Content-Type: text/plain').problems).toEqual([
      expect.stringMatching(/"Content-Type" is set by the platform/),
    ]);
  });
});
