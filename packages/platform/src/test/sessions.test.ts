/**
 * Dashboard sessions on the real server, on SQLite and PostgreSQL: a token exchanged for an
 * HttpOnly cookie, CSRF refused without the session's token, sign-out, one-time sign-in codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInCode, SESSION_COOKIE, sessionOf } from '../access/sessions.js';
import type { Answer } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { manifest, startWorld, type World } from '../test-support/world.js';

describe.each(backends)('sessions on $name', (backend) => {
  let world: World;
  let installation: string;
  beforeAll(async () => {
    world = await startWorld(backend);
    const published = await world.as(world.tokens.ada)('POST', '/v1/integrations', {
      manifest: manifest('session-test', 'acme'),
      script: 'export default {}',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    installation = (
      await world.as(world.tokens.ada)('POST', '/v1/orgs/acme/installations', { integration: 'session-test' })
    ).body.id;
  }, 60_000);
  afterAll(() => world?.close());

  /** Signs in with `body` and answers the cookie header, the CSRF token and the raw answer. */
  async function signIn(body: object) {
    const response = await fetch(`${world.platform.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Answer['body'];
    const setCookie = response.headers.get('set-cookie') ?? '';
    const cookie = setCookie.split(';')[0] as string;
    return { status: response.status, answer, setCookie, cookie, csrf: answer.csrfToken as string };
  }

  /** A call with the session cookie (and the CSRF token when given), never a bearer token. */
  const withCookie = (cookie: string, csrf?: string) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.platform.url}${path}`, {
      method,
      headers: {
        cookie,
        ...(csrf ? { 'x-csrf-token': csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
  };

  it('exchanges a user token for an HttpOnly, SameSite=Strict cookie that stands for that user', async () => {
    const session = await signIn({ token: world.tokens.bob });
    expect(session.status).toBe(201);
    expect(session.answer).toEqual({
      principal: { kind: 'user', userId: 'bob', name: 'bob' },
      csrfToken: expect.any(String),
    });
    expect(session.setCookie).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[\\w-]{43}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict$`),
    );
    // Over plain http the cookie is not marked Secure (the browser would drop it); the token is in no URL.
    const bob = withCookie(session.cookie);
    expect((await bob('GET', `/v1/installations/${installation}`)).body).toMatchObject({ id: installation });
    expect((await bob('GET', '/v1/session')).body).toEqual(session.answer);
    // dave is in no organization: his session reaches nothing of acme's.
    const dave = withCookie((await signIn({ token: world.tokens.dave })).cookie);
    expect((await dave('GET', `/v1/installations/${installation}`)).status).toBe(403);
  });

  it('refuses a change without the session’s CSRF token, and stores nothing', async () => {
    const session = await signIn({ token: world.tokens.ada });
    const path = `/v1/installations/${installation}/configuration`;
    const refused = await withCookie(session.cookie)('PATCH', path, { url: 'https://evil.example.com' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('csrf_refused');
    const wrong = await withCookie(session.cookie, `${session.csrf.slice(1)}x`)('PATCH', path, {
      url: 'https://x.example.com',
    });
    expect(wrong.status).toBe(403);
    expect(
      (await world.as(world.tokens.bob)('GET', `/v1/installations/${installation}`)).body.configuration,
    ).not.toHaveProperty('url');
    // A member's session, with its CSRF token, is refused too: configuring needs an admin.
    const member = await signIn({ token: world.tokens.bob });
    const byMember = await withCookie(member.cookie, member.csrf)('PATCH', path, { url: 'https://x.example.com' });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.message).toMatch(/^changing the configuration needs the admin role/);
    const saved = await withCookie(session.cookie, session.csrf)('PATCH', path, { url: 'https://hooks.example.com' });
    expect(saved.status).toBe(200);
    expect(saved.body.status).toBe('active');
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const session = await signIn({ token: world.tokens.ada });
    expect((await withCookie(session.cookie)('DELETE', '/v1/session')).status).toBe(403);
    const out = await withCookie(session.cookie, session.csrf)('DELETE', '/v1/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0; Path=/`));
    const after = await withCookie(session.cookie)('GET', `/v1/installations/${installation}`);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/the session has ended .*sign in again/);
    expect((await withCookie(session.cookie)('GET', '/v1/session')).status).toBe(401);
  });

  it('refuses installation tokens, unknown tokens, and a body with both or neither', async () => {
    // Recognised by its prefix, before any lookup: installation tokens never open a session.
    const refused = await signIn({ token: 'pti_an-installation-token' });
    expect(refused.status).toBe(400);
    expect(refused.answer.error).toMatchObject({
      code: 'installation_token',
      message: expect.stringMatching(/belongs to an integration/),
    });
    expect((await signIn({ token: 'ptu_unknown' })).status).toBe(401);
    expect((await signIn({})).answer.error.message).toMatch(/send either `token` .* or `code`/);
    expect((await signIn({ token: world.tokens.ada, code: 'x' })).status).toBe(400);
    expect((await signIn({ password: 'x' })).status).toBe(400);
  });

  it('opens an operator session with a one-time sign-in code, once; it ends when the admin token changes', async () => {
    const code = await createSignInCode(world.platform.ctx);
    const session = await signIn({ code });
    expect(session.status).toBe(201);
    expect(session.answer.principal).toEqual({ kind: 'admin' });
    const operator = withCookie(session.cookie, session.csrf);
    expect((await operator('POST', '/v1/orgs', { id: 'initech', title: 'Initech' })).status).toBe(201);
    const again = await signIn({ code });
    expect(again.status).toBe(401);
    expect(again.answer.error.message).toMatch(/each code works once, for 15 minutes/);
    const secret = session.cookie.slice(SESSION_COOKIE.length + 1);
    expect(await sessionOf(world.platform.ctx, world.platform.adminToken, secret)).toBeDefined();
    expect(await sessionOf(world.platform.ctx, 'pta_another_admin_token', secret)).toBeUndefined();
  });

  it('hands out one-time sign-in links for a user (operator only), optionally to a dashboard page', async () => {
    const admin = world.admin;
    const made = await admin('POST', '/v1/users/bob/sign-in-links', { path: `/installations/${installation}` });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { url, expiresAt } = made.body as { url: string; expiresAt: string };
    expect(url).toMatch(new RegExp(`^${world.platform.url}/installations/${installation}#code=u\\.[\\w.-]+$`));
    const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14.9);
    expect(minutes).toBeLessThanOrEqual(15);
    // What the dashboard does with the link: the code from the fragment, exchanged once.
    const code = new URL(url).hash.slice('#code='.length);
    const session = await signIn({ code });
    expect(session.status).toBe(201);
    expect(session.answer.principal).toEqual({ kind: 'user', userId: 'bob', name: 'bob' });
    expect((await withCookie(session.cookie)('GET', `/v1/installations/${installation}`)).status).toBe(200);
    const again = await signIn({ code });
    expect(again.status).toBe(401);
    expect(again.answer.error.message).toMatch(/each code works once, for 15 minutes/);
    // A code that was not made here, even shaped like one, opens nothing.
    expect((await signIn({ code: `${code.slice(0, -4)}AAAA` })).status).toBe(401);
    expect((await signIn({ code: 'u.v1.forged.code' })).status).toBe(401);
    // Without a path the link opens the overview.
    const home = await admin('POST', '/v1/users/bob/sign-in-links', {});
    expect(home.body.url).toMatch(new RegExp(`^${world.platform.url}/#code=u\\.`));
  });

  it('refuses sign-in links to members, for unknown users, and to places outside the dashboard', async () => {
    const asAda = await world.as(world.tokens.ada)('POST', '/v1/users/bob/sign-in-links', {});
    expect(asAda.status).toBe(403);
    const unknown = await world.admin('POST', '/v1/users/nobody/sign-in-links', {});
    expect(unknown).toMatchObject({ status: 404, body: { error: { message: 'the user nobody does not exist' } } });
    for (const path of ['https://evil.example.com/', '//evil.example.com', '/\\evil.example.com', 'spaces/x']) {
      const refused = await world.admin('POST', '/v1/users/bob/sign-in-links', { path });
      expect(refused.status, path).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_path' });
      expect(refused.body.error.message).toMatch(/^`path` must be a path of the dashboard starting with one \//);
    }
    const api = await world.admin('POST', '/v1/users/bob/sign-in-links', { path: '/v1/orgs' });
    expect(api.body.error.message).toBe('`path` must be a dashboard page, not an API route');
    const fragment = await world.admin('POST', '/v1/users/bob/sign-in-links', { path: '/spaces/x#y' });
    expect(fragment.body.error.message).toMatch(/must not hold spaces or a #/);
    expect((await world.admin('POST', '/v1/users/bob/sign-in-links', { where: '/' })).status).toBe(400);
  });

  it('ends a sign-in link’s session, and refuses its code, once the user’s token is revoked', async () => {
    const { token } = (await world.admin('POST', '/v1/users', { id: 'erin', name: 'Erin' })).body;
    await world.admin('PUT', '/v1/orgs/acme/members/erin', { role: 'member' });
    const first = (await world.admin('POST', '/v1/users/erin/sign-in-links', {})).body.url as string;
    const second = (await world.admin('POST', '/v1/users/erin/sign-in-links', {})).body.url as string;
    const session = await signIn({ code: new URL(first).hash.slice(6) });
    expect(session.status).toBe(201);
    const db = world.platform.ctx.db;
    await db.updateTable('user_tokens').set({ revoked_at: Date.now() }).where('user_id', '=', 'erin').execute();
    expect((await withCookie(session.cookie)('GET', '/v1/session')).status).toBe(401);
    expect((await signIn({ code: new URL(second).hash.slice(6) })).status).toBe(401);
    const none = await world.admin('POST', '/v1/users/erin/sign-in-links', {});
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/^the user erin has no token in force/);
    expect(token).toBeDefined();
  });
});
