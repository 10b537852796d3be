/**
 * Vitest global setup: the workerd processes a test run starts have all ended when it finishes.
 * Setup notes the run's session (the vitest main process's: its test workers, the servers they
 * spawn and every workerd below them share it) and the workerd processes already running, which
 * are not the run's. Teardown waits up to 10 s for the run's other workerd processes to end; any
 * still running then are named, killed, and the run fails.
 */
import { isRunning, type ProcessInfo, processes, processInfo } from '../hosts/proc.js';

const WAIT_MS = 10_000;

let session: number | undefined;
let before = new Set<string>();

/** A pid with its start time names one process, even if the pid is reused. */
const identity = (p: ProcessInfo) => `${p.pid}@${p.startTicks}`;
const isWorkerd = (p: ProcessInfo) => p.comm === 'workerd';

export function setup(): void {
  session = processInfo(process.pid)?.session;
  before = new Set(processes().filter(isWorkerd).map(identity));
}

export async function teardown(): Promise<void> {
  if (session === undefined) return; // no /proc here: nothing to check
  const started = () =>
    processes().filter(
      (p) => isWorkerd(p) && p.session === session && !before.has(identity(p)) && isRunning(p.pid, p.startTicks),
    );
  const deadline = Date.now() + WAIT_MS;
  let left = started();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = started();
  }
  if (left.length === 0) return;
  const named = left.map((p) => {
    const parent = p.ppid === 1 ? 'orphaned' : `parent ${p.ppid} ${processInfo(p.ppid)?.comm ?? '(gone)'}`;
    return `pid ${p.pid} (${parent})`;
  });
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // It ended just now.
    }
  }
  // Vitest reports an error thrown here but does not fail the run for it.
  process.exitCode = 1;
  throw new Error(
    `${left.length} workerd process(es) started by this test run still ran ${WAIT_MS / 1000} s after it: ${named.join(', ')}. ` +
      'A test did not close a WorkerdHost or platform it started, or a server it killed left its workers behind; ' +
      'they have been killed now. Close what the test starts (afterEach/afterAll) and run it again.',
  );
}
