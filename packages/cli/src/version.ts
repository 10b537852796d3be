import { readFileSync } from 'node:fs';

/** The version of this CLI, from its package.json. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/** The TypeScript release new integrations are set up with. */
export const TYPESCRIPT_RANGE = '7.0.0';

/** The vitest release new integrations test with. */
export const VITEST_RANGE = '4.1.0';
