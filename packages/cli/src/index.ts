export { type CheckOptions, check } from './commands/check.js';
export { type NewOptions, newIntegration } from './commands/new.js';
export { type DevServer, type FoundDevServer, readDevServer } from './dev-server-file.js';
export type { Io } from './io.js';
export { run } from './program.js';
