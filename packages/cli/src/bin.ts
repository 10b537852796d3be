#!/usr/bin/env node
import { processIo } from './io.js';
import { run } from './program.js';

try {
  process.exitCode = await run(process.argv.slice(2), processIo());
} catch (error) {
  process.stderr.write(
    `portico: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 2;
} finally {
  // Stop reading the terminal so the process can exit once the command is done.
  process.stdin.pause();
}
