/** What each manifest scope grants, in a sentence a person installing the integration reads (spec 5.3). */
import type { Scope } from '@portico/manifest';

export const SCOPE_GRANTS: Record<Scope, string> = {
  'space:content:read': 'Read the content of your spaces',
  'space:content:write': 'Change the content of your spaces',
  'space:metadata:read': 'Read the metadata of your spaces',
  'space:metadata:write': 'Change the metadata of your spaces',
  'space:git:sync': 'Manage Git sync in your spaces',
  'site:metadata:read': 'Read the metadata of your sites',
  'site:views:read': 'Read the analytics of your sites (page views and feedback)',
  'site:script:inject': 'Inject scripts into your sites (internal integrations only)',
  'site:script:cookies': 'Use cookies in your sites (internal integrations only)',
  'site:visitor:auth': 'Run the sign-in of visitors for authenticated access to your sites',
  'site:visitor:claims': 'Show the claims of signed-in visitors to web frames',
  'site:adaptive:read': 'Read the claims adaptive content uses',
  'site:adaptive:write': 'Write the claims adaptive content uses',
  'openapi:read': "Read your sites' OpenAPI specifications",
  'openapi:write': "Change your sites' OpenAPI specifications",
  'conversations:ingest': 'Send conversations in for ingestion',
};

/** Each scope with what it grants. */
export function scopeGrants(scopes: readonly string[]): { scope: string; grants: string }[] {
  return scopes.map((scope) => ({ scope, grants: SCOPE_GRANTS[scope as Scope] ?? scope }));
}
