#!/usr/bin/env node
// The `portico` command: runs the compiled CLI in ../dist. This file is committed (dist is built), so
// `npm ci` in a fresh checkout links the command before `npm run build` has made dist.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    `portico: ${fileURLToPath(entry)} is missing: run \`npm run build\` in the Portico checkout first\n`,
  );
  process.exitCode = 2;
} else {
  await import(entry.href);
}
