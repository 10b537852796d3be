/** A setting is wrong: the message names it and says what it must be. The server does not start. */
export class ConfigError extends Error {}
