/** Writes `schema/platform-manifest.schema.json` from the validator's schema (`npm run schema`). */
import { writeFile } from 'node:fs/promises';
import { manifestJsonSchema } from './manifest-json-schema.js';

const target = new URL('../schema/platform-manifest.schema.json', import.meta.url);
await writeFile(target, `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
