import { type Envelope, encodeEnvelope } from '../envelope.js';
import type { Environment, OrganizationInstallationEnvironment, PlatformEvent } from '../types.js';

export const environment: OrganizationInstallationEnvironment = {
  apiEndpoint: 'http://127.0.0.1:9',
  apiTokens: { installation: 'tok_secret_value' },
  integration: { name: 'demo', urls: { publicEndpoint: 'https://portico.test/v1/installations/inst_1/public' } },
  id: 'inst_1',
  status: 'active',
  configuration: { greeting: 'Hi' },
  urls: { publicEndpoint: 'https://portico.test/v1/installations/inst_1/public' },
  secrets: { API_KEY: 'sk_super_secret' },
  installationKey: 'installation-key-for-tests',
  organization: 'acme',
  target: 'organization',
  space_selection: { mode: 'all' },
  site_selection: { mode: 'all' },
  externalIds: [],
};

/** A POST /v1 request carrying `event` (and `body`), as the platform sends it. */
export async function envelopeRequest(
  event: PlatformEvent,
  options: { body?: Uint8Array; environment?: Environment; path?: string } = {},
): Promise<Request> {
  const envelope: Envelope = { event, environment: options.environment ?? environment };
  if (options.body) envelope.body = options.body;
  const encoded = await encodeEnvelope(envelope);
  return new Request(`http://integration.test${options.path ?? '/v1'}`, {
    method: 'POST',
    headers: encoded.headers,
    body: encoded.body as Uint8Array<ArrayBuffer>,
  });
}

/** A multipart body built by hand, to send what encodeEnvelope never would. */
export function rawMultipart(
  parts: { name: string; body: string; filename?: string; type?: string }[],
  boundary = 'XyZ123',
): Request {
  const text = `${parts
    .map(
      (p) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n${p.body}\r\n`,
    )
    .join('')}--${boundary}--\r\n`;
  return new Request('http://integration.test/v1', {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: text,
  });
}
