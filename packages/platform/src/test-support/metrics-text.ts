/** Reads the Prometheus text format that `/metrics` answers, for tests. */

export interface Scrape {
  /** The value of one sample: `name` alone, or `name{a="x",b="y"}` with its labels in any order. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The names declared by `# TYPE` lines, with their type. */
  types: Map<string, string>;
  text: string;
}

export function parseMetrics(text: string): Scrape {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    samples.set(key(sample[1] as string, labels), Number(sample[3]));
  }
  return { value: (name, labels = {}) => samples.get(key(name, labels)), types, text };
}

function key(name: string, labels: Record<string, string | undefined>): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`);
  return `${name}{${parts.join(',')}}`;
}

/** Scrapes `url`/metrics (with `token` as a bearer token when given). */
export async function scrape(url: string, token?: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${await response.text()}`);
  return parseMetrics(await response.text());
}
