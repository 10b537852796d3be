/**
 * Keeps a metric label's values bounded: the first `max` distinct values are used as given, any
 * later one becomes `other`. Labels only ever carry values from small sets (event types, outcome
 * classes, stop reasons); this is the guard should a new source send values from a large one.
 */
export class BoundedLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 50) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(value);
    return value;
  }
}
