/** The harness on the example integrations: a stateful component and a public-endpoint receiver. */

import { loadManifest, type Manifest } from '@portico/manifest';
import helloWorld from '@portico-examples/hello-world';
import publicEndpoint from '@portico-examples/public-endpoint';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestPlatform, type TestPlatform } from './test-platform.js';

const platforms: TestPlatform[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(platforms.splice(0).map((p) => p.close()));
});

async function manifestOf(example: string): Promise<Manifest> {
  const loaded = await loadManifest(new URL(`../../../examples/${example}`, import.meta.url).pathname);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.manifest;
}

async function platformFor(...args: Parameters<typeof createTestPlatform>) {
  const platform = await createTestPlatform(...args);
  platforms.push(platform);
  return platform;
}

describe('hello-world: a component with state and actions', () => {
  it('renders with the configured greeting and counts presses of its buttons', async () => {
    const platform = await platformFor(helloWorld, {
      manifest: await manifestOf('hello-world'),
      configuration: { greeting: 'Howdy' },
    });
    const first = await platform.render('greeting', { props: { name: 'Ada' } });
    expect(first.state).toEqual({ count: 0 });
    expect(first.element.children.slice(0, 2)).toEqual([
      { type: 'text', style: 'bold', children: 'Howdy, Ada!' },
      { type: 'text', children: 'You said hello 0 times.' },
    ]);
    const once = await platform.press(first, 'Say hello');
    expect(once.state).toEqual({ count: 1 });
    expect(once.element.children[1]).toEqual({ type: 'text', children: 'You said hello once.' });
    const twice = await platform.press(once, 'Say hello');
    expect(twice.state).toEqual({ count: 2 });
    const reset = await platform.press(twice, 'Reset');
    expect(reset.state).toEqual({ count: 0 });
    await expect(platform.press(reset, 'Goodbye')).rejects.toThrow(
      /no button "Goodbye" in greeting; its buttons are: Say hello, Reset/,
    );
  });

  it('is active when its configuration is complete, and handles installation_setup', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const platform = await platformFor(helloWorld, {
      manifest: await manifestOf('hello-world'),
      configuration: { greeting: 'Hi' },
    });
    expect(platform.status).toBe('active');
    const response = await platform.event({ type: 'installation_setup', status: 'active' });
    expect(response.status).toBe(204);
    expect(console.log).toHaveBeenCalledWith('hello-world: installation inst_test is active');
  });

  it('answers events it has no handler for with 404, and unknown components with an error', async () => {
    const platform = await platformFor(helloWorld, { manifest: await manifestOf('hello-world') });
    expect(platform.status).toBe('pending');
    const response = await platform.event({ type: 'space_content_updated', spaceId: 's', revisionId: 'r' });
    expect(response.status).toBe(404);
    await expect(platform.render('missing')).rejects.toThrow(/rendering missing answered 404: .*unknown_component/);
  });
});

describe('public-endpoint: the public endpoint reference behaviour (spec 4.2)', () => {
  it('answers GET with 405 "Method not allowed"', async () => {
    const platform = await platformFor(publicEndpoint, { manifest: await manifestOf('public-endpoint') });
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await platform.fetch('/', { method });
      expect(response.status).toBe(405);
      expect(await response.text()).toBe('Method not allowed');
    }
  });

  it('answers POST with 200 { received: true } at once and records the arrival after the response', async () => {
    const platform = await platformFor(publicEndpoint, { manifest: await manifestOf('public-endpoint') });
    const response = await platform.fetch('/incoming?source=test', {
      method: 'POST',
      body: JSON.stringify({ hello: 'world' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ received: true });
    await platform.settled();
    expect(platform.configurationWrites).toEqual([{ last_received_at: expect.stringMatching(/^\d{4}-/) }]);
    expect(platform.configuration.last_received_at).toBe(platform.configurationWrites[0]?.last_received_at);
  });
});
