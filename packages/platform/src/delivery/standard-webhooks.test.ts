/**
 * Standard Webhooks on real deliveries, on SQLite and PostgreSQL: every attempt and every
 * redelivery of an event to an installation carries the same `webhook-id` and its own `webhook-timestamp`, each verified by the real
 * `standardwebhooks` package; a secret made before decision 032 (base64url text) is shown in the
 * standard spelling of the same key, and receivers set up with either spelling keep verifying.
 */
import { randomBytes } from 'node:crypto';
import { verify } from '@portico/webhooks';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { currentToken } from '../installations/tokens.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

const stripe = new Stripe('sk_test_unused');

describe.each(backends)('Standard Webhooks on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);
  const deliver = (installation: string, token: string, url: string, eventId: string) =>
    client(world.platform.url, token)('POST', `/v1/installations/${installation}/deliveries`, {
      url,
      eventId,
      type: 'test',
      payload: { eventId },
    });

  it('signs every attempt and every redelivery afresh under the one webhook-id of the event and installation', async () => {
    const secret = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const url = receiver.script('/retried', [503, 200]);
    const asked = await deliver(world.space, world.spaceToken, url, 'evt_retried');
    expect(asked.status).toBe(202);
    const attempts = await until('two attempts', () =>
      receiver.at('/retried').length === 2 ? receiver.at('/retried') : undefined,
    );
    const webhook = new Webhook(secret);
    const id = attempts[0]?.headers['webhook-id'];
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    for (const [index, attempt] of attempts.entries()) {
      const headers = attempt.headers as Record<string, string>;
      expect(headers['webhook-id']).toBe(id);
      expect(headers['x-platform-delivery-attempt']).toBe(String(index + 1));
      expect(Number(headers['webhook-timestamp'])).toBeCloseTo(attempt.at / 1000, -1);
      expect(webhook.verify(attempt.body, headers)).toEqual({ eventId: 'evt_retried' });
      // The same bytes under another id do not verify: the id is part of what is signed.
      expect(() => webhook.verify(attempt.body, { ...headers, 'webhook-id': 'dlv_other' })).toThrow();
    }
    // A redelivery is the same message again: the same id, signed afresh.
    const again = await world.ada('POST', `/v1/deliveries/${asked.body.id}/redeliver`);
    expect(again.status).toBe(202);
    const [replay] = await until('the redelivery', () =>
      receiver.at('/retried').length === 3 ? receiver.at('/retried').slice(2) : undefined,
    );
    expect(replay?.headers['webhook-id']).toBe(id);
    expect(replay?.headers['x-platform-delivery-id']).toBe(again.body.id);
    expect(webhook.verify(replay?.body ?? '', replay?.headers as Record<string, string>)).toEqual({
      eventId: 'evt_retried',
    });
  }, 30_000);

  it('shows a secret made before decision 032 in the standard spelling; both spellings keep verifying', async () => {
    const key = randomBytes(32);
    const legacy = `whsec_${key.toString('base64url')}`;
    const { ctx } = world.platform;
    await ctx.db
      .insertInto('signing_secrets')
      .values({ installation_id: world.site, secret: ctx.box.seal(legacy), created_at: ctx.now(), expires_at: null })
      .execute();
    const shown = (await world.ada('GET', `/v1/installations/${world.site}/signing-secret`)).body.secret as string;
    expect(shown).toBe(`whsec_${key.toString('base64')}`);

    const url = receiver.script('/legacy', [200]);
    expect((await deliver(world.site, await currentToken(ctx, world.site), url, 'evt_legacy')).status).toBe(202);
    const [request] = await until('the delivery', () =>
      receiver.at('/legacy').length ? receiver.at('/legacy') : undefined,
    );
    const body = request?.body ?? '';
    const headers = request?.headers as Record<string, string>;
    const header = headers['x-platform-signature'] as string;
    expect(header.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    for (const spelling of [shown, legacy]) {
      expect(stripe.webhooks.constructEvent(body, header, spelling)).toEqual({ eventId: 'evt_legacy' });
      expect(await verify(spelling, body, headers)).toBe(true);
    }
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(new Webhook(shown).verify(body, headers)).toEqual({ eventId: 'evt_legacy' });
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers)).toThrow();
  }, 30_000);
});
