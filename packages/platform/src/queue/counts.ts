/** Counts per key (work in flight or under way per installation, integration, destination); a key at zero is dropped. */
export class Counts extends Map<string, number> {
  of(key: string): number {
    return this.get(key) ?? 0;
  }

  add(key: string, by = 1): void {
    const n = this.of(key) + by;
    if (n > 0) this.set(key, n);
    else this.delete(key);
  }
}

/** Changes to counts per key, negative ones too (a key back at zero is dropped). */
export class Changes extends Map<string, number> {
  add(key: string, by = 1): void {
    const n = (this.get(key) ?? 0) + by;
    if (n !== 0) this.set(key, n);
    else this.delete(key);
  }
}
