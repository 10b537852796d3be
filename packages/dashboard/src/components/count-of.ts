/** "1 attempt", "4 attempts": a count with its noun in the right number (never "attempt(s)"). */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
