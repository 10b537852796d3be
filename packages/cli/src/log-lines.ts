/**
 * Where `portico serve` logs go: lines are gathered and written together, at 16 KiB or 100 ms
 * after the first one, and when the process exits. A write per request line (pino's default)
 * cost more than building the line; this costs one write per batch. Writes are asynchronous, as
 * pino's default destination's are, so a slow reader of the output never stalls the server. Lost
 * only when the process is killed outright (SIGKILL): at most the last 100 ms of lines.
 */
import { writeSync } from 'node:fs';
import { type DestinationStream, pino } from 'pino';

const BATCH_BYTES = 16 * 1024;
const BATCH_MS = 100;

export class GatheredLines implements DestinationStream {
  private lines: string[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly out: ReturnType<typeof pino.destination>;
  private readonly atExit = () => {
    // No more event loop: what the destination holds, then what is gathered, synchronously.
    this.out.flushSync();
    const text = this.take();
    if (text !== undefined) writeSync(this.fd, text);
  };

  constructor(private readonly fd = 1) {
    this.out = pino.destination({ dest: fd, sync: false });
    process.on('exit', this.atExit);
  }

  write(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= BATCH_BYTES) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), BATCH_MS);
      this.timer.unref();
    }
  }

  /** Hands what is gathered to the destination now. */
  flush(): void {
    const text = this.take();
    if (text !== undefined) this.out.write(text);
  }

  /** Writes what is left, synchronously, and stops listening for the process's exit. */
  close(): void {
    process.off('exit', this.atExit);
    this.atExit();
  }

  private take(): string | undefined {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.lines.length === 0) return undefined;
    const text = this.lines.join('');
    this.lines = [];
    this.size = 0;
    return text;
  }
}
