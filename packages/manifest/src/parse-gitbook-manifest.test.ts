import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseGitBookManifest } from './parse-gitbook-manifest.js';

/** A GitBook-dialect manifest of 8 lines: text appended to it starts on line 9. */
const BASE = `name: tracker
title: Tracker
description: Counts page views
organization: acme
visibility: public
script: ./src/index.ts
scopes:
  - site:views:read
`;

const parse = (text: string, options: Parameters<typeof parseGitBookManifest>[1] = {}) =>
  parseGitBookManifest(text, options);

describe('parseGitBookManifest', () => {
  it('reads a manifest with nothing dialect-specific as the same Portico manifest, no warnings', () => {
    const result = parse(BASE);
    expect(result).toMatchObject({ ok: true, file: 'gitbook-manifest.yaml', dialect: 'gitbook', warnings: [] });
    expect(result.ok && result.manifest).toEqual({
      name: 'tracker',
      title: 'Tracker',
      description: 'Counts page views',
      organization: 'acme',
      visibility: 'public',
      script: './src/index.ts',
      scopes: ['site:views:read'],
    });
    expect(result.gitbook).toEqual({ target: 'all', configurationComponents: {}, blocks: {}, envs: [] });
  });

  it('understands target, contentSecurityPolicy, page:feedback:read and visitor-auth without warnings', () => {
    const result = parse(`${BASE}  - page:feedback:read
target: site
categories:
  - visitor-auth
  - analytics
contentSecurityPolicy:
  script-src: https://cdn.tracker.test
  connect-src:
    - https://api.tracker.test
    - https://eu.tracker.test
`);
    expect(result.warnings).toEqual([]);
    expect(result.errors).toEqual([]);
    // page:feedback:read is site:views:read here; listed beside it, it is kept once.
    expect(result.ok && result.manifest.scopes).toEqual(['site:views:read']);
    expect(result.ok && result.manifest.categories).toEqual(['authenticated-access', 'analytics']);
    expect(result.gitbook).toMatchObject({
      target: 'site',
      contentSecurityPolicy: {
        'script-src': 'https://cdn.tracker.test',
        'connect-src': 'https://api.tracker.test https://eu.tracker.test',
      },
    });
    expect(parse(`${BASE}contentSecurityPolicy: "script-src 'self'"\n`).gitbook?.contentSecurityPolicy).toBe(
      "script-src 'self'",
    );
  });

  it('translates configurations.space into the site-level form, with positions in configurations.space', () => {
    const result = parse(`${BASE}configurations:
  space:
    properties:
      project:
        type: string
        title: Project
      mode:
        type: strin
    required: [project, projec]
`);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      {
        path: 'configurations.site.properties.mode.type',
        line: 16,
        column: 15,
        message: expect.stringMatching(/property type must be one of .* but it is "strin" \(did you mean "string"\?\)/),
      },
      {
        path: 'configurations.site.required[1]',
        line: 17,
        column: 25,
        message: expect.stringMatching(
          /"projec" is listed in `required` but is not a property \(did you mean "project"\?\)/,
        ),
      },
    ]);
    const fixed = parse(`${BASE}configurations:
  space:
    properties:
      project:
        type: string
    required: [project]
`);
    expect(fixed.ok && fixed.manifest.configurations).toEqual({
      site: { properties: { project: { type: 'string' } }, required: ['project'] },
    });
  });

  it('merges configurations.space and configurations.site into one form, and says so', () => {
    const result = parse(`${BASE}configurations:
  site:
    properties:
      shared:
        type: string
      siteOnly:
        type: boolean
    required: [shared, siteOnly]
  space:
    properties:
      shared:
        type: number
      spaceOnly:
        type: string
    required: [shared, spaceOnly]
`);
    expect(result.errors).toEqual([]);
    expect(result.ok && result.manifest.configurations?.site).toEqual({
      properties: { shared: { type: 'string' }, siteOnly: { type: 'boolean' }, spaceOnly: { type: 'string' } },
      required: ['shared'],
    });
    expect(result.warnings).toEqual([
      expect.objectContaining({
        line: 17,
        column: 3,
        message: expect.stringMatching(/one configuration form for spaces and sites: the properties .* are merged/),
      }),
      expect.objectContaining({
        line: 19,
        column: 7,
        message: expect.stringMatching(/`shared` is defined differently in `configurations.site`/),
      }),
    ]);
  });

  it('reads { componentId } configurations as components, with or without a form beside them', () => {
    const result = parse(`${BASE}configurations:
  account:
    componentId: connect
  site:
    componentId: site-config
    properties:
      channel:
        type: string
`);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.ok && result.manifest.configurations).toEqual({
      site: { properties: { channel: { type: 'string' } } },
    });
    expect(result.gitbook?.configurationComponents).toEqual({ account: 'connect', site: 'site-config' });
    const bad = parse(`${BASE}configurations:\n  account:\n    componentId: 42\n`);
    expect(bad.errors).toEqual([
      expect.objectContaining({
        line: 11,
        column: 18,
        message: expect.stringMatching(/componentId` must be the id of the component .* but it is the number 42/),
      }),
    ]);
  });

  it('keeps blocks’ urlUnfurl and markdown beside the block, and refuses them malformed', () => {
    const result = parse(`${BASE}blocks:
  - id: diagram
    title: Diagram
    description: Draws a diagram
    urlUnfurl:
      - https://diagrams.test/d/**
    markdown:
      codeblock: diagram
      body: source
`);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.ok && result.manifest.blocks).toEqual([
      { id: 'diagram', title: 'Diagram', description: 'Draws a diagram' },
    ]);
    expect(result.gitbook?.blocks).toEqual({
      diagram: { urlUnfurl: ['https://diagrams.test/d/**'], markdown: { codeblock: 'diagram', body: 'source' } },
    });
    const bad = parse(`${BASE}blocks:
  - id: diagram
    title: Diagram
    description: Draws a diagram
    urlUnfurl: https://diagrams.test
    markdown: mermaid
`);
    expect(bad.errors.map((e) => [e.line, e.column, e.message])).toEqual([
      [13, 16, expect.stringMatching(/urlUnfurl` must be a list of URL patterns .* but it is "https/)],
      [14, 15, expect.stringMatching(/markdown` must be a mapping with `codeblock` .* but it is "mermaid"/)],
    ]);
  });

  it('warns, with line and column, about what has no meaning here, and stays valid', () => {
    const result = parse(`${BASE}  - space:views:read
  - space:teleport
categories:
  - gitsync
blocks:
  - id: b
    title: B
    description: A block
    icon: ./b.png
configurations:
  spaces:
    properties: {}
externalLinks:
  - label: Docs
    url: https://docs.test
    target: _blank
descripton: typo
`);
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => [w.line, w.column, w.message])).toEqual([
      [
        9,
        5,
        expect.stringMatching(
          /scope "space:views:read" has no meaning in Portico; it is ignored: .*space:content:read/,
        ),
      ],
      [10, 5, 'the scope "space:teleport" has no meaning in Portico; it is ignored'],
      [
        12,
        5,
        expect.stringMatching(/category "gitsync" has no meaning in Portico; it is ignored \(Portico's categories are/),
      ],
      [17, 5, '`icon` in `blocks[0]` has no meaning in Portico; it is ignored'],
      [
        19,
        3,
        expect.stringMatching(
          /`configurations.spaces` has no meaning in Portico; it is ignored .*\(did you mean "space"\?\)/,
        ),
      ],
      [24, 5, '`target` in `externalLinks[0]` has no meaning in Portico; it is ignored'],
      [25, 1, '`descripton` at the top level has no meaning in Portico; it is ignored (did you mean "description"?)'],
    ]);
    expect(result.ok && result.manifest.scopes).toEqual(['site:views:read']);
    expect(result.ok && result.manifest).not.toHaveProperty('descripton');
  });

  it('keeps Portico’s errors, positioned in the GitBook manifest, next to its warnings', () => {
    const result = parse(`name: Tracker Pro
title: Tracker
description: Counts page views
visibility: everyone
scopes: [site:views:read, site:script:inject]
target: sites
`);
    expect(result.ok).toBe(false);
    expect(result.errors.map((e) => [e.line, e.column, e.message])).toEqual([
      [1, 1, expect.stringMatching(/missing required field `organization`/)],
      [1, 7, expect.stringMatching(/`name` must be lowercase words/)],
      [4, 13, expect.stringMatching(/`visibility` must be one of private, unlisted, public, but it is "everyone"/)],
      [5, 27, expect.stringMatching(/the scope "site:script:inject" is internal to the platform/)],
      [6, 9, '`target` must be one of all, organization, space, site, but it is "sites" (did you mean "site"?)'],
    ]);
    // An operator-marked internal publisher may inject site scripts, as in Portico manifests.
    const internal = parse(BASE.replace('site:views:read', 'site:script:inject'), { internalPublisher: true });
    expect(internal.ok).toBe(true);
  });

  it('applies an env over the top-level keys, positions pointing into envs', () => {
    const text = `${BASE}envs:
  staging:
    organization: acme-staging
    visibility: nobody
  dev:
    name: tracker-dev
`;
    expect(parse(text).ok && parse(text).gitbook?.envs).toEqual(['staging', 'dev']);
    const dev = parse(text, { env: 'dev' });
    expect(dev.ok && [dev.manifest.name, dev.manifest.organization]).toEqual(['tracker-dev', 'acme']);
    expect(dev.gitbook?.env).toBe('dev');
    const staging = parse(text, { env: 'staging' });
    expect(staging.errors.map((e) => [e.line, e.column, e.path])).toEqual([[12, 17, 'visibility']]);
    expect(parse(text, { env: 'prod' }).errors).toEqual([
      expect.objectContaining({
        line: 10,
        column: 3,
        message: expect.stringMatching(/no env "prod" in `envs`; the manifest's envs are staging, dev/),
      }),
    ]);
    expect(parse(`${BASE}envs: [dev]\n`).errors[0]?.message).toMatch(/`envs` must be a mapping of environment names/);
  });

  it('reports YAML errors as the Portico parser does, and never throws', () => {
    expect(parse('name: [unclosed\n').errors[0]).toMatchObject({ line: 2, message: expect.stringMatching(/YAML/) });
    expect(parse('').errors[0]?.message).toMatch(/the manifest is empty/);
    for (const text of ['- a\n', 'target: [1]\nscopes: 3\nconfigurations: 1\nblocks: {}\n', 'envs: {a: 1}\n']) {
      expect(() => parse(text)).not.toThrow();
    }
  });

  it('treats names an object inherits (toString, constructor) as any other unknown scope or category', () => {
    const result = parse(`${BASE.replace(/scopes:\n.*\n/, '')}scopes: [toString]\ncategories: [constructor]\n`);
    expect(result.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/the scope "toString" has no meaning in Portico; it is ignored/),
      expect.stringMatching(/the category "constructor" has no meaning in Portico; it is ignored/),
    ]);
  });

  it('answers any value of the keys it translates with positioned problems, never an exception', () => {
    const keys = ['target', 'contentSecurityPolicy', 'envs', 'configurations', 'blocks', 'scopes', 'categories'];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 4 })),
        fc.option(fc.string()),
        (extra, env) => {
          const text = `${BASE.replace(/scopes:\n.*\n/, '')}${stringify(extra)}`;
          const result = parse(text, env === null ? {} : { env });
          const lines = text.split('\n').length;
          for (const problem of [...result.errors, ...result.warnings]) {
            expect(problem.line >= 1 && problem.line <= lines && problem.column >= 1).toBe(true);
            expect(problem.message.length).toBeGreaterThan(10);
          }
          if (!result.ok) expect(result.errors.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
