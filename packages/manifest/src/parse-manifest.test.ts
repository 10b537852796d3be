import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.js';
import { BASE, errorsOf, expectOnlyError, expectValid, withTopLevel } from './test-support/manifests.js';

const example = readFileSync(new URL('../../../examples/hello-world/platform-manifest.yaml', import.meta.url), 'utf8');

describe('parseManifest: a valid manifest', () => {
  it('accepts the smallest manifest and returns it typed', () => {
    const manifest = expectValid(BASE);
    expect(manifest).toEqual({
      name: 'demo',
      title: 'Demo',
      description: 'A demo integration',
      organization: 'acme',
      visibility: 'private',
      scopes: ['space:content:read'],
    });
  });

  it('accepts the example manifest with every optional section', () => {
    const manifest = expectValid(example);
    expect(manifest?.configurations?.account?.properties.style).toEqual({
      type: 'string',
      title: 'Style',
      enum: ['plain', 'friendly', 'formal'],
      default: 'friendly',
    });
    expect(manifest?.secrets).toEqual({ API_KEY: '${{ env.HELLO_WORLD_API_KEY }}' });
  });

  it('reports the file name it was given', () => {
    expect(parseManifest(BASE, { file: 'x/platform-manifest.yaml' }).file).toBe('x/platform-manifest.yaml');
  });

  it('reports every problem at once, in source order', () => {
    const errors = errorsOf('name: Bad Name\nvisibility: secret\nscopes: nope\n');
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['title', 1, 1],
      ['description', 1, 1],
      ['organization', 1, 1],
      ['name', 1, 7],
      ['visibility', 2, 13],
      ['scopes', 3, 9],
    ]);
  });
});

describe('required fields', () => {
  for (const field of ['name', 'title', 'description', 'organization', 'visibility', 'scopes']) {
    it(`refuses a manifest without \`${field}\`, pointing at the mapping that lacks it`, () => {
      const text = withTopLevel({ [field]: undefined }).replace(
        field === 'scopes' ? '  - space:content:read\n' : '',
        '',
      );
      expectOnlyError(text, {
        path: field,
        line: 1,
        column: 1,
        message: new RegExp(`missing required field \`${field}\`.*add \`${field}:\``),
      });
    });
  }

  it('refuses an empty value and points at its key', () => {
    expectOnlyError(withTopLevel({ title: '' }), { path: 'title', line: 2, column: 1, message: /must be text.*empty/ });
  });

  it('refuses a blank string', () => {
    expectOnlyError(withTopLevel({ description: '"   "' }), {
      path: 'description',
      line: 3,
      column: 14,
      message: /must not be empty/,
    });
  });

  it('refuses a field of the wrong type and says which type it wants', () => {
    expectOnlyError(withTopLevel({ title: '[a, b]' }), {
      path: 'title',
      line: 2,
      column: 8,
      message: /`title` must be text \(a string\), but it is a list/,
    });
  });
});

describe('name', () => {
  for (const good of ['demo', 'my-integration', 'slack2', 'a-b-c3']) {
    it(`accepts "${good}"`, () => expectValid(withTopLevel({ name: good })));
  }
  for (const bad of [
    'My-Integration',
    'my--integration',
    'my_integration',
    '-demo',
    'demo-',
    '2fa',
    'my integration',
  ]) {
    it(`refuses "${bad}"`, () => {
      expectOnlyError(withTopLevel({ name: JSON.stringify(bad) }), {
        path: 'name',
        line: 1,
        column: 7,
        message: /lowercase words .* joined by single hyphens, e\.g\. `my-integration`/,
      });
    });
  }
});

describe('summary', () => {
  it('accepts 2048 characters even when each is a 4-byte emoji', () => {
    const summary = '🎉'.repeat(2048);
    expect(new TextEncoder().encode(summary).length).toBe(8192);
    expect(expectValid(`${BASE}summary: ${summary}\n`)?.summary).toBe(summary);
  });

  it('refuses 2049 characters and says how long it is', () => {
    expectOnlyError(`${BASE}summary: ${'🎉'.repeat(2049)}\n`, {
      path: 'summary',
      line: 8,
      column: 10,
      message: /2049 characters long; the limit is 2048/,
    });
  });

  it('counts ASCII the same way', () => {
    expectValid(`${BASE}summary: ${'a'.repeat(2048)}\n`);
    expect(errorsOf(`${BASE}summary: ${'a'.repeat(2049)}\n`)).toHaveLength(1);
  });
});

describe('visibility, categories and scopes', () => {
  for (const visibility of ['private', 'unlisted', 'public']) {
    it(`accepts visibility ${visibility}`, () => expectValid(withTopLevel({ visibility })));
  }

  it('refuses an unknown visibility and suggests the closest', () => {
    expectOnlyError(withTopLevel({ visibility: 'publik' }), {
      path: 'visibility',
      line: 5,
      column: 13,
      message: /must be one of private, unlisted, public, but it is "publik" \(did you mean "public"\?\)/,
    });
  });

  it('accepts every category and refuses an unknown one', () => {
    expectValid(`${BASE}categories: [analytics, collaboration, content, marketing, authenticated-access, other]\n`);
    expectOnlyError(`${BASE}categories:\n  - analytic\n`, {
      path: 'categories[0]',
      line: 9,
      column: 5,
      message: /did you mean "analytics"/,
    });
  });

  it('flags a duplicate category at the second occurrence', () => {
    expectOnlyError(`${BASE}categories: [content, content]\n`, {
      path: 'categories[1]',
      line: 8,
      column: 23,
      message: /"content" is listed twice in `categories` \(first at line 8\)/,
    });
  });

  it('accepts every public scope and an empty list', () => {
    const scopes = [
      'space:content:read',
      'space:content:write',
      'space:metadata:read',
      'space:metadata:write',
      'space:git:sync',
      'site:metadata:read',
      'site:views:read',
      'site:visitor:auth',
      'site:visitor:claims',
      'site:adaptive:read',
      'site:adaptive:write',
      'openapi:read',
      'openapi:write',
      'conversations:ingest',
    ];
    expectValid(withTopLevel({ scopes: `[${scopes.join(', ')}]` }).replace('  - space:content:read\n', ''));
    expectValid(withTopLevel({ scopes: '[]' }).replace('  - space:content:read\n', ''));
  });

  it('refuses an unknown scope with a suggestion', () => {
    expectOnlyError(`${BASE}  - space:content:reed\n`, {
      path: 'scopes[1]',
      line: 8,
      column: 5,
      message: /did you mean "space:content:read"/,
    });
  });

  it('flags a duplicate scope', () => {
    expectOnlyError(`${BASE}  - space:content:read\n`, {
      path: 'scopes[1]',
      line: 8,
      column: 5,
      message: /"space:content:read" is listed twice in `scopes` \(first at line 7\); remove the duplicate/,
    });
  });

  for (const scope of ['site:script:inject', 'site:script:cookies']) {
    it(`refuses the internal scope ${scope} unless the publisher is internal`, () => {
      const text = `${BASE}  - ${scope}\n`;
      expectOnlyError(text, { path: 'scopes[1]', line: 8, column: 5, message: /internal to the platform/ });
      expect(parseManifest(text, { internalPublisher: true }).ok).toBe(true);
    });
  }

  it('refuses scopes that are not a list', () => {
    expectOnlyError(withTopLevel({ scopes: 'space:content:read' }).replace('  - space:content:read\n', ''), {
      path: 'scopes',
      line: 6,
      column: 9,
      message: /`scopes` must be a list/,
    });
  });
});

describe('blocks', () => {
  it('accepts blocks with id, title and description', () => {
    expectValid(
      `${BASE}blocks:\n  - id: a\n    title: A\n    description: First\n  - id: b\n    title: B\n    description: Second\n`,
    );
  });

  for (const field of ['id', 'title', 'description']) {
    it(`refuses a block without \`${field}\``, () => {
      const lines = ['  - id: a', '    title: A', '    description: First'].filter((l) => !l.includes(`${field}:`));
      const text = `${BASE}blocks:\n${lines.join('\n').replace(/^ {4}/, '  - ')}\n`;
      expectOnlyError(text, {
        path: `blocks[0].${field}`,
        line: 9,
        column: 5,
        message: new RegExp(`missing required field \`${field}\` in \`blocks\\[0\\]\``),
      });
    });
  }

  it('refuses a duplicate id and names the first block', () => {
    expectOnlyError(
      `${BASE}blocks:\n  - id: a\n    title: A\n    description: d\n  - id: a\n    title: B\n    description: d\n`,
      {
        path: 'blocks[1].id',
        line: 12,
        column: 9,
        message: /the block id "a" is already used by `blocks\[0\]` \(line 9\)/,
      },
    );
  });
});

describe('externalLinks', () => {
  it('accepts http and https links', () => {
    expectValid(
      `${BASE}externalLinks:\n  - label: Docs\n    url: https://example.com/docs\n  - label: Old\n    url: http://example.com\n`,
    );
  });

  for (const url of ['ftp://example.com', 'example.com/docs', 'javascript:alert(1)', 'https://']) {
    it(`refuses the url ${url}`, () => {
      expectOnlyError(`${BASE}externalLinks:\n  - label: Docs\n    url: "${url}"\n`, {
        path: 'externalLinks[0].url',
        line: 10,
        column: 10,
        message: /is not an http\(s\) URL; write a full address/,
      });
    });
  }

  it('refuses a link without a label', () => {
    expectOnlyError(`${BASE}externalLinks:\n  - url: https://example.com\n`, {
      path: 'externalLinks[0].label',
      line: 9,
      column: 5,
      message: /missing required field `label`/,
    });
  });
});

describe('asset paths (without a directory)', () => {
  it('accepts relative paths', () => {
    expectValid(`${BASE}icon: assets/icon.png\nscript: ./src/index.ts\npreviewImages: [a.png, img/b.jpg]\n`);
  });

  const cases: [string, RegExp][] = [
    ['../icon.png', /points outside the integration's directory/],
    ['assets/../../icon.png', /points outside the integration's directory/],
    ['/etc/passwd', /is an absolute path/],
    ['C:\\\\icons\\\\icon.png', /is an absolute path/],
    ['https://example.com/icon.png', /is a URL/],
    ['assets/', /is a directory/],
  ];
  for (const [path, message] of cases) {
    it(`refuses icon "${path}"`, () => {
      expectOnlyError(`${BASE}icon: "${path}"\n`, { path: 'icon', line: 8, column: 7, message });
    });
  }

  it('checks each preview image and the script', () => {
    const errors = errorsOf(`${BASE}previewImages:\n  - ok.png\n  - ../bad.png\nscript: /abs.ts\n`);
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['previewImages[1]', 10, 5],
      ['script', 11, 9],
    ]);
  });
});

describe('configurations', () => {
  const config = (properties: string, required = '') =>
    `${BASE}configurations:\n  site:\n    properties:\n${properties}${required}`;
  // configurations: line 8, site: 9, properties: 10, first property name: 11, its first key: 12.

  it('accepts every property type with its keys', () => {
    expectValid(
      config(
        '      url:\n        type: string\n        title: URL\n        description: Where to send events\n        default: https://example.com\n' +
          '      region:\n        type: string\n        enum: [eu, us]\n        default: eu\n' +
          '      project:\n        type: string\n        completion_url: /projects\n' +
          '      limit:\n        type: number\n        default: 10\n' +
          '      enabled:\n        type: boolean\n        default: false\n' +
          '      oauth_credentials:\n        type: button\n        button_text: Connect\n        callback_url: /oauth\n',
        '    required: [url, oauth_credentials]\n',
      ),
    );
  });

  it('accepts both account and site blocks, and a block without required', () => {
    expectValid(
      `${BASE}configurations:\n  account:\n    properties:\n      a:\n        type: number\n  site:\n    properties: {}\n`,
    );
  });

  it('refuses an unknown type with a suggestion, at the type value', () => {
    expectOnlyError(config('      url:\n        type: strng\n'), {
      path: 'configurations.site.properties.url.type',
      line: 12,
      column: 15,
      message:
        /property type must be one of string, number, boolean, button, but it is "strng" \(did you mean "string"\?\)/,
    });
  });

  it('refuses a property without a type', () => {
    expectOnlyError(config('      url:\n        title: URL\n'), {
      path: 'configurations.site.properties.url.type',
      line: 12,
      column: 9,
      message: /missing `type` for property `configurations.site.properties.url`/,
    });
  });

  for (const type of ['number', 'boolean', 'button']) {
    for (const key of ['enum', 'completion_url']) {
      it(`refuses \`${key}\` on a ${type} property`, () => {
        const extra = type === 'button' ? '        button_text: Go\n        callback_url: /go\n' : '';
        const value = key === 'enum' ? '[a]' : '/x';
        expectOnlyError(config(`      p:\n        type: ${type}\n${extra}        ${key}: ${value}\n`), {
          path: `configurations.site.properties.p.${key}`,
          line: type === 'button' ? 15 : 13,
          column: 9,
          message: new RegExp(
            `\`${key}\` is only allowed on properties of type string, and this property is of type ${type}`,
          ),
        });
      });
    }
  }

  for (const key of ['button_text', 'callback_url']) {
    it(`requires \`${key}\` on a button`, () => {
      const other = key === 'button_text' ? '        callback_url: /oauth\n' : '        button_text: Connect\n';
      expectOnlyError(config(`      connect:\n        type: button\n${other}`), {
        path: `configurations.site.properties.connect.${key}`,
        line: 12,
        column: 9,
        message: new RegExp(`missing required field \`${key}\``),
      });
    });
  }

  const defaults: [string, string, RegExp][] = [
    ['string', '42', /must be text/],
    ['number', '"ten"', /must be a number, but it is "ten"/],
    ['boolean', '"yes"', /must be true or false, but it is "yes"/],
  ];
  for (const [type, value, message] of defaults) {
    it(`refuses a ${type} default of the wrong type`, () => {
      expectOnlyError(config(`      p:\n        type: ${type}\n        default: ${value}\n`), {
        path: 'configurations.site.properties.p.default',
        line: 13,
        column: 18,
        message,
      });
    });
  }

  it('refuses a default that is not one of the enum options', () => {
    expectOnlyError(config('      region:\n        type: string\n        enum: [eu, us]\n        default: asia\n'), {
      path: 'configurations.site.properties.region.default',
      line: 14,
      column: 18,
      message: /the default "asia" is not one of the options in `enum` \(eu, us\)/,
    });
  });

  it('refuses an empty enum and a duplicate option', () => {
    expectOnlyError(config('      region:\n        type: string\n        enum: []\n'), {
      path: 'configurations.site.properties.region.enum',
      line: 13,
      column: 15,
      message: /must list at least one option/,
    });
    expectOnlyError(config('      region:\n        type: string\n        enum: [eu, eu]\n'), {
      path: 'configurations.site.properties.region.enum[1]',
      line: 13,
      column: 20,
      message: /"eu" is listed twice/,
    });
  });

  for (const key of ['completion_url', 'callback_url']) {
    for (const bad of ['oauth', 'https://x.test/oauth', '//evil.test/x']) {
      it(`refuses ${key} "${bad}" that is not a path starting with /`, () => {
        const property =
          key === 'completion_url'
            ? `      p:\n        type: string\n        completion_url: "${bad}"\n`
            : `      p:\n        type: button\n        button_text: Go\n        callback_url: "${bad}"\n`;
        expectOnlyError(config(property), {
          path: `configurations.site.properties.p.${key}`,
          line: key === 'completion_url' ? 13 : 14,
          column: key.length + 11,
          message: /must be a path served by the integration that starts with `\/`/,
        });
      });
    }
  }

  it('refuses a required name that is not a property, with a suggestion', () => {
    expectOnlyError(config('      url:\n        type: string\n', '    required:\n      - ulr\n'), {
      path: 'configurations.site.required[0]',
      line: 14,
      column: 9,
      message: /"ulr" is listed in `required` but is not a property \(did you mean "url"\?\)/,
    });
  });

  it('refuses required names when there are no properties, saying where to define them', () => {
    expectOnlyError(
      config('      {}\n', '    required: [token]\n').replace('properties:\n      {}', 'properties: {}'),
      {
        path: 'configurations.site.required[0]',
        line: 11,
        column: 16,
        message: /define it under `properties`/,
      },
    );
  });

  it('refuses a configuration level other than account and site', () => {
    expectOnlyError(`${BASE}configurations:\n  space:\n    properties: {}\n`, {
      path: 'configurations.space',
      line: 9,
      column: 3,
      message: /unknown key `space` in `configurations`; allowed keys are account, site/,
    });
  });

  it('refuses a block without properties', () => {
    expectOnlyError(`${BASE}configurations:\n  account:\n    required: []\n`, {
      path: 'configurations.account.properties',
      line: 10,
      column: 5,
      message: /missing required field `properties` in `configurations.account`/,
    });
  });
});

describe('secrets', () => {
  it('accepts environment references, with or without inner spaces', () => {
    expectValid(`${BASE}secrets:\n  CLIENT_ID: \${{ env.GH_CLIENT_ID }}\n  CLIENT_SECRET: "\${{env.GH_SECRET}}"\n`);
  });

  for (const value of ['sk_live_123', '${{ secrets.X }}', '${{ env.1BAD }}', 'prefix-${{ env.X }}', '$GH_TOKEN']) {
    it(`refuses the value ${value}`, () => {
      expectOnlyError(`${BASE}secrets:\n  TOKEN: "${value}"\n`, {
        path: 'secrets.TOKEN',
        line: 9,
        column: 10,
        message: /must be an environment reference written `\$\{\{ env.NAME \}\}`; never write a secret value/,
      });
    });
  }

  it('refuses a secret name that is not an identifier', () => {
    expectOnlyError(`${BASE}secrets:\n  my-token: \${{ env.X }}\n`, {
      path: 'secrets.my-token',
      line: 9,
      column: 3,
      message: /the key `my-token` is not valid: secret names are letters, digits and underscores/,
    });
  });
});

describe('unknown keys', () => {
  const cases: [string, string, number, number, RegExp][] = [
    ['titel: X\n', 'titel', 8, 1, /unknown key `titel` at the top level of the manifest \(did you mean "title"\?\)/],
    ['external_links: []\n', 'external_links', 8, 1, /did you mean "externalLinks"/],
    ['Scripts: x.ts\n', 'Scripts', 8, 1, /did you mean "script"/],
    [
      'homepage: https://x.test\n',
      'homepage',
      8,
      1,
      /unknown key `homepage`.*; allowed keys are name, title, description/,
    ],
  ];
  for (const [line, path, l, c, message] of cases) {
    it(`refuses \`${path}\` with a suggestion when one is close`, () => {
      expectOnlyError(`${BASE}${line}`, { path, line: l, column: c, message });
    });
  }

  it('refuses unknown keys inside blocks, links and properties', () => {
    const errors = errorsOf(
      `${BASE}blocks:\n  - id: a\n    title: A\n    description: d\n    icon: x\nexternalLinks:\n  - label: L\n    url: https://x.test\n    lable: L\nconfigurations:\n  site:\n    properties:\n      p:\n        type: string\n        titel: P\n`,
    );
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['blocks[0].icon', 12, 5],
      ['externalLinks[0].lable', 16, 5],
      ['configurations.site.properties.p.titel', 22, 9],
    ]);
    expect(errors[1]?.message).toMatch(/did you mean "label"/);
    expect(errors[2]?.message).toMatch(/did you mean "title"/);
  });
});
