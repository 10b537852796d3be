import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { configurationSchema } from './configuration-schema.js';
import { parseManifest } from './parse-manifest.js';
import { BASE } from './test-support/manifests.js';

const manifest = (() => {
  const result = parseManifest(`${BASE}configurations:
  account:
    properties:
      url:
        type: string
        title: Webhook URL
        description: Where events go
      region:
        type: string
        enum: [eu, us]
        default: eu
      retries:
        type: number
        default: 3
      verbose:
        type: boolean
      oauth_credentials:
        type: button
        button_text: Connect
        callback_url: /oauth
    required: [url, oauth_credentials]
`);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.manifest;
})();

const ajv = new Ajv2020({ strict: true, allErrors: true });

describe('configurationSchema', () => {
  it('turns a configuration block into a draft 2020-12 JSON Schema', () => {
    expect(configurationSchema(manifest, 'account')).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'account configuration',
      type: 'object',
      properties: {
        url: { type: 'string', title: 'Webhook URL', description: 'Where events go' },
        region: { type: 'string', enum: ['eu', 'us'], default: 'eu' },
        retries: { type: 'number', default: 3 },
        verbose: { type: 'boolean' },
        oauth_credentials: { type: 'object' },
      },
      required: ['url', 'oauth_credentials'],
      additionalProperties: false,
    });
  });

  it('compiles in a strict draft 2020-12 validator and validates configurations', () => {
    const validate = ajv.compile(configurationSchema(manifest, 'account'));
    expect(
      validate({
        url: 'https://x.test',
        region: 'us',
        retries: 5,
        verbose: true,
        oauth_credentials: { access_token: 't' },
      }),
    ).toBe(true);
    expect(validate({ url: 'https://x.test' })).toBe(false);
    expect(validate.errors?.map((e) => e.params)).toEqual([{ missingProperty: 'oauth_credentials' }]);
    expect(
      validate({ url: 3, region: 'asia', retries: 'many', verbose: 'yes', oauth_credentials: 'x', extra: 1 }),
    ).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath || e.params.additionalProperty).sort()).toEqual(
      ['/oauth_credentials', '/region', '/retries', '/url', '/verbose', 'extra'].sort(),
    );
  });

  it('gives an empty-object schema for a level the manifest does not configure', () => {
    const schema = configurationSchema(manifest, 'site');
    expect(schema).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
    expect(schema).not.toHaveProperty('required');
    const validate = ajv.compile(schema);
    expect(validate({})).toBe(true);
    expect(validate({ anything: 1 })).toBe(false);
  });
});
