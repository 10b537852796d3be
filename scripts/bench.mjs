// Portico's benchmarks: `npm run bench` runs them on the built packages and rewrites BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { loadManifest, parseManifest } from '@portico/manifest';

const exampleDir = new URL('../examples/hello-world/', import.meta.url);
const exampleText = readFileSync(new URL('platform-manifest.yaml', exampleDir), 'utf8');

/** Runs `fn` repeatedly for about `seconds` after a warm-up; answers operations per second (best of 3 rounds). */
async function measure(fn, seconds = 2) {
  for (let i = 0; i < 200; i++) await fn();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let count = 0;
    const start = performance.now();
    const until = start + (seconds * 1000) / 3;
    while (performance.now() < until) {
      for (let i = 0; i < 50; i++) await fn();
      count += 50;
    }
    best = Math.max(best, (count * 1000) / (performance.now() - start));
  }
  return best;
}

const benchmarks = [
  {
    name: 'manifest: parseManifest(example text)',
    unit: 'manifests validated / s',
    fn: () => {
      if (!parseManifest(exampleText).ok) throw new Error('the example manifest is invalid');
    },
  },
  {
    name: 'manifest: loadManifest(example dir), with its files and preview image read from disk',
    unit: 'manifests validated / s',
    fn: async () => {
      if (!(await loadManifest(exampleDir.pathname)).ok) throw new Error('the example manifest is invalid');
    },
  },
];

const rows = [];
for (const bench of benchmarks) {
  const rate = await measure(bench.fn);
  rows.push(`| ${bench.name} | ${Math.round(rate).toLocaleString('en-US')} ${bench.unit} |`);
  console.log(rows.at(-1));
}

const cpu = cpus();
const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}`;
const report = `# Benchmarks

Written by \`npm run bench\` (scripts/bench.mjs) on the built packages; each figure is the best of
three rounds after a warm-up. Speed targets live here, never in timed unit tests.

- Date: ${new Date().toISOString().slice(0, 10)}
- Machine: ${machine}

| Benchmark | Result |
|---|---|
${rows.join('\n')}
`;
writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), report);
console.log('wrote BENCHMARKS.md');
