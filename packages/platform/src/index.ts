export { ConfigError, configFromEnv, type PlatformConfig } from './config.js';
export { ApiError } from './errors.js';
export { createApp } from './http/app.js';
export { type RunningPlatform, type StartOptions, startPlatform, VERSION } from './server.js';
export type { Principal, ServiceContext } from './services/context.js';
export { currentToken } from './services/installations.js';
export { openDatabase } from './storage/database.js';
export { migrate } from './storage/migrate.js';
