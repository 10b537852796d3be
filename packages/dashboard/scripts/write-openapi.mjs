// Writes the platform's OpenAPI document to src/api/generated/openapi.json without starting a
// server: it builds the platform's Hono app (from @portico/platform's build) and asks it for the
// document its routes declare. No route runs, so the app gets a context that refuses every use.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createApp, VERSION } from '@portico/platform';

const refuse = (what) =>
  new Proxy(
    {},
    {
      get(_target, key) {
        throw new Error(
          `write-openapi: the app used ${what}.${String(key)} while building its routes; only the document is built here`,
        );
      },
    },
  );

const app = createApp({ ctx: refuse('ctx'), dispatcher: refuse('dispatcher'), adminToken: '', version: VERSION });
// What GET /v1/openapi.json answers, read from the route registry (that route runs middleware that
// needs the database).
const document = app.getOpenAPI31Document({
  openapi: '3.1.0',
  info: { title: 'Portico API', version: VERSION, description: 'The Portico integration platform API' },
});
const out = new URL('../src/api/generated/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('openapi.json', out), `${JSON.stringify(document, null, 2)}\n`);
