import { describe, expect, it } from 'vitest';
import { CommandError } from './command-error.js';
import { applyFields, EVENT_KINDS, eventKind, mergeDeep, parseData } from './event-fields.js';

describe('the events portico emit sends', () => {
  it('has a value for every field of each event the platform ingests', () => {
    const at = { space: 'docs', site: 'web', unique: 'u1' };
    const fields = Object.fromEntries(
      EVENT_KINDS.flatMap((k) => (k.how === 'ingested' ? [[k.type, k.fields(at)]] : [])),
    );
    expect(Object.keys(fields)).toEqual([
      'space_content_updated',
      'space_view',
      'space_visibility_updated',
      'space_gitsync_started',
      'space_gitsync_completed',
      'site_view',
      'page_feedback',
    ]);
    expect(fields.page_feedback).toEqual({
      siteId: 'web',
      spaceId: 'docs',
      pageId: 'getting-started',
      feedback: { rating: 'good', comment: 'Sent with portico emit' },
      visitor: {
        anonymousId: 'anon_u1',
        userAgent: expect.stringMatching(/^portico-emit\//),
        ip: '203.0.113.10',
        cookies: {},
      },
      url: 'https://docs.example.com/web/getting-started',
      referrer: 'https://www.example.com/',
    });
    expect(fields.space_content_updated).toEqual({ spaceId: 'docs', revisionId: 'rev_u1' });
  });

  it('names the closest type of a mistyped one', () => {
    expect(() => eventKind('space_contet_updated')).toThrow(/\(did you mean "space_content_updated"\?\)/);
    expect(eventKind('ui_render')).toEqual({ type: 'ui_render', how: 'render' });
  });
});

describe('--field and --data', () => {
  const base = { url: 'https://x', visitor: { ip: '1.1.1.1', cookies: {} } };

  it('sets nested fields by dotted keys, keeping strings strings and reading JSON elsewhere', () => {
    expect(
      applyFields(base, [
        'url=42',
        'visitor.ip=2.2.2.2',
        'visitor.cookies.a=1',
        'extra.count=3',
        'flag=true',
        'word=hi',
      ]),
    ).toEqual({
      url: '42',
      visitor: { ip: '2.2.2.2', cookies: { a: 1 } },
      extra: { count: 3 },
      flag: true,
      word: 'hi',
    });
    expect(applyFields({}, ['eventId=123'], new Set(['eventId']))).toEqual({ eventId: '123' });
    expect(base.visitor.ip).toBe('1.1.1.1');
  });

  it('refuses settings that are not key=value or reach into a value', () => {
    for (const [setting, message] of [
      ['url', /"url" is not key=value/],
      ['=x', /"=x" is not key=value/],
      ['a..b=1', /"a..b" is not a field name/],
      ['__proto__.x=1', /is not a field name/],
      ['url.host=x', /url is "https:\/\/x", not an object with fields/],
    ] as const) {
      const error = (() => {
        try {
          applyFields(base, [setting]);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(CommandError);
      expect((error as CommandError).message).toMatch(message);
      expect((error as CommandError).exitCode).toBe(2);
    }
  });

  it('merges --data over the defaults, objects key by key', () => {
    expect(mergeDeep(base, parseData('{"visitor":{"ip":"3.3.3.3"},"url":null}'))).toEqual({
      url: null,
      visitor: { ip: '3.3.3.3', cookies: {} },
    });
    expect(() => parseData('[]')).toThrow(/--data must be a JSON object/);
    expect(() => parseData("{'a':1}")).toThrow(/--data is not JSON/);
  });
});
