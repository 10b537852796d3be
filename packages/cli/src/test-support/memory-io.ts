import type { Io } from '../io.js';

/** An Io that records what a command prints and answers its questions from a script. */
export function memoryIo(
  cwd: string,
  answers?: string[],
): Io & { stdout: string; stderr: string; questions: string[] } {
  const io = {
    stdout: '',
    stderr: '',
    questions: [] as string[],
    cwd,
    interactive: answers !== undefined,
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
    async ask(question: string) {
      io.questions.push(question);
      return answers?.shift();
    },
  };
  return io;
}
