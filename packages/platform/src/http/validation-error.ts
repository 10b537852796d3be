import type { z } from '@hono/zod-openapi';

/** A zod failure as one sentence that names each bad field and says what it should be. */
const TARGETS: Record<string, string> = { json: 'body', param: 'path', query: 'query', header: 'header' };

export function describeValidationError(target: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const where = [TARGETS[target] ?? target, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')} in ${where}`;
    }
    if (issue.code === 'invalid_type') {
      const expected = issue.expected === 'record' ? 'an object' : issue.expected;
      return `${where} ${issue.message.includes('undefined') ? 'is required' : `must be ${expected}`}`;
    }
    return `${where}: ${issue.message}`;
  });
  return `invalid request: ${parts.join('; ')}`;
}
