/**
 * How the commands that talk to a server end: 0 when it went well, 1 when something failed (the
 * server refused, could not be reached, a delivery failed), 2 when the command line itself is
 * wrong (a missing argument, a flag that does not fit). A command throws a CommandError (or lets
 * a ServerFailure through) and `runCommand` prints `portico NAME: message` and answers the code.
 */
import { ServerFailure } from './api-client.js';
import type { Io } from './io.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_FAILURE | typeof EXIT_USAGE = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** A command line that cannot work as given (exit status 2). */
export const usage = (message: string) => new CommandError(message, EXIT_USAGE);

/** Runs one command; prints what ended it and answers its exit code. */
export async function runCommand(name: string, io: Io, body: () => Promise<number | undefined>): Promise<number> {
  try {
    return (await body()) ?? EXIT_OK;
  } catch (error) {
    if (error instanceof CommandError) {
      io.err(`portico ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof ServerFailure) {
      io.err(`portico ${name}: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}
