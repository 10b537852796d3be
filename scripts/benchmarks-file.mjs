// BENCHMARKS.md as `npm run bench` rewrites it: its own sections replaced, the sections written by
// hand beside them (measurements of one change, with their dates) kept where they were.

/** The `## ` sections of a Markdown text, each with what follows it up to the next; and what comes before the first. */
function sections(text) {
  const [head, ...rest] = text.split(/^(?=## )/m);
  return { head, sections: rest.map((body) => ({ heading: body.slice(3, body.indexOf('\n')).trim(), body })) };
}

/**
 * The report `npm run bench` wrote (`generated`), with every section of the file it replaces
 * (`previous`) whose heading the report does not have put back before the report's first section,
 * in their order. Without a previous file, the report as it is.
 */
export function withHandWrittenSections(generated, previous) {
  if (previous === undefined) return generated;
  const report = sections(generated);
  const own = new Set(report.sections.map((s) => s.heading));
  const kept = sections(previous).sections.filter((s) => !own.has(s.heading));
  if (kept.length === 0) return generated;
  const block = kept.map((s) => (s.body.endsWith('\n\n') ? s.body : `${s.body.trimEnd()}\n\n`)).join('');
  return report.head + block + report.sections.map((s) => s.body).join('');
}
