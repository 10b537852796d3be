/**
 * The platform side of the GitBook dialect (decision 030), on SQLite and PostgreSQL: a version
 * published with the dialect's facts keeps them; bad facts are refused with a 400 that says what
 * to fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from './test-support/backends.js';
import { startWorld, type World } from './test-support/world.js';

/** A translated GitBook-dialect manifest, as `portico publish` sends it. */
const manifest = (name: string) => `# Translated by portico from gitbook-manifest.yaml
name: ${name}
title: ${name}
description: Written for GitBook's runtime, for these tests
organization: acme
visibility: private
scopes: [space:content:read]
blocks:
  - id: diagram
    title: Diagram
    description: A diagram
`;

const facts = {
  target: 'all',
  contentSecurityPolicy: { 'script-src': "https://cdn.example.com 'self'" },
  configurationComponents: { account: 'settings' },
  blocks: { diagram: { urlUnfurl: ['https://diagrams.example.com/*'] } },
};

describe.each(backends)('the GitBook dialect on $name', (backend) => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld(backend);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  describe('publishing', () => {
    it('keeps the dialect’s facts with the version and shows them on the integration', async () => {
      const ada = world.as(world.tokens.ada);
      const published = await ada('POST', '/v1/integrations', {
        manifest: manifest('gb-facts'),
        script: '// a bundle',
        gitbook: facts,
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const stored = await world.platform.ctx.db
        .selectFrom('integration_versions')
        .select('gitbook')
        .where('integration_name', '=', 'gb-facts')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(stored.gitbook as string)).toEqual(facts);
      const page = await ada('GET', '/v1/integrations/gb-facts');
      expect(page.body.gitbook).toEqual(facts);
    });

    it('keeps nothing for a version written for Portico', async () => {
      const ada = world.as(world.tokens.ada);
      const published = await ada('POST', '/v1/integrations', { manifest: manifest('native'), script: '// a bundle' });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const page = await ada('GET', '/v1/integrations/native');
      expect(page.body).not.toHaveProperty('gitbook');
    });

    it.each([
      [
        'a target it does not know',
        { ...facts, target: 'spaces' },
        /body\.gitbook\.target: must be one of all, organization, space, site/,
      ],
      ['no target', { ...facts, target: undefined }, /body\.gitbook\.target/],
      ['a key it does not know', { ...facts, csp: 'x' }, /unknown field `csp` in body\.gitbook/],
      [
        'a policy that is not text',
        { ...facts, contentSecurityPolicy: { 'script-src': ['a'] } },
        /body\.gitbook\.contentSecurityPolicy: must be a policy as text, or a mapping of directives/,
      ],
      [
        'a block the manifest does not have',
        { ...facts, blocks: { chart: {} } },
        /gitbook\.blocks\.chart: the manifest has no block "chart" \(its blocks are "diagram"\)/,
      ],
    ])('refuses %s with a 400 that says what to fix', async (_, gitbook, message) => {
      const ada = world.as(world.tokens.ada);
      const refused = await ada('POST', '/v1/integrations', {
        manifest: manifest('gb-refused'),
        script: '// a bundle',
        gitbook,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(message);
      expect((await ada('GET', '/v1/integrations/gb-refused')).status).toBe(404);
    });
  });
});
