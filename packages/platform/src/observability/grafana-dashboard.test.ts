/**
 * The ready-made Grafana dashboard (docs/grafana/portico.json) asks only for metrics the server
 * exports: every query names at least one metric, and each name it uses is one a real server's
 * /metrics declares (a histogram's `_bucket`, `_sum` and `_count` series included).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startPlatform } from '../server.js';
import { backends } from '../test-support/backends.js';
import { scrape } from '../test-support/metrics-text.js';

const dashboardFile = new URL('../../../../docs/grafana/portico.json', import.meta.url);

/** PromQL words that are not metric names: functions, aggregations, keywords. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'label_values',
  'topk',
  'bottomk',
  'delta',
  'deriv',
  'clamp_min',
  'clamp_max',
  'abs',
  'time',
  'vector',
  'scalar',
]);

/** The metric names a PromQL query uses (label matchers, ranges, groupings and strings left out). */
function metricNames(query: string): string[] {
  const bare = query
    // A variable's label_values(metric, label): its second argument is a label.
    .replace(/label_values\(([^,)]*),[^)]*\)/g, '$1')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '');
  const words = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return words.filter((word) => !PROMQL_WORDS.has(word));
}

/** Every PromQL query of the dashboard: panel targets' `expr` and query variables' `query`. */
function queries(dashboard: {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}): { where: string; query: string }[] {
  return [
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, query: target.expr })),
    ),
    ...dashboard.templating.list
      .filter((variable) => variable.type === 'query')
      .map((variable) => ({ where: `variable ${variable.name}`, query: String(variable.query) })),
  ];
}

describe('the Grafana dashboard', () => {
  it('reads metric names out of PromQL', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(portico_x_bucket{instance=~"$instance", a="b{c}"}[$__rate_interval])))',
      ),
    ).toEqual(['portico_x_bucket']);
    expect(metricNames('sum(rate(a_total[5m])) / sum(rate(b_count[5m]))')).toEqual(['a_total', 'b_count']);
    expect(metricNames('label_values(portico_y, instance)')).toEqual(['portico_y']);
  });

  it('queries only metrics a real server exports', async () => {
    const backend = backends[0];
    if (backend === undefined) throw new Error('no back end to run on');
    const { config, cleanup } = await backend.fresh();
    const platform = await startPlatform(config);
    let exported: Set<string>;
    try {
      const { types } = await scrape(platform.url);
      exported = new Set(
        [...types].flatMap(([name, type]) =>
          type === 'histogram'
            ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`]
            : type === 'summary'
              ? [name, `${name}_sum`, `${name}_count`]
              : [name],
        ),
      );
    } finally {
      await platform.close();
      await cleanup();
    }
    const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8'));
    const all = queries(dashboard);
    expect(all.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const { where, query } of all) {
      const names = metricNames(query);
      if (names.length === 0) problems.push(`${where} names no metric: ${query}`);
      for (const name of names)
        if (!exported.has(name)) problems.push(`${where} uses ${name}, which /metrics does not export`);
    }
    expect(problems).toEqual([]);
    // Every metric of the server's own is on the dashboard.
    const used = new Set(all.flatMap(({ query }) => metricNames(query)));
    const own = [...exported].filter((name) => name.startsWith('portico_') && !/_(bucket|sum|count)$/.test(name));
    const missing = own.filter(
      (name) => ![name, `${name}_bucket`, `${name}_sum`, `${name}_count`].some((n) => used.has(n)),
    );
    expect(missing).toEqual([]);
  });
});
