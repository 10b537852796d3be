import { createInterface } from 'node:readline';

/** What a command may touch of the outside world; tests and the real process supply their own. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  /** True when a person is at the terminal and can answer questions. */
  interactive: boolean;
  /** Asks a question and resolves to the answer line, or undefined when input has ended. */
  ask(question: string): Promise<string | undefined>;
}

export function processIo(): Io {
  let lines: AsyncIterator<string> | undefined;
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    async ask(question) {
      process.stdout.write(question);
      // One line reader for the whole run: lines typed (or pasted) ahead of a question are kept.
      lines ??= createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
      const next = await lines.next();
      return next.done ? undefined : next.value;
    },
  };
}
