/** Event types as a person reads them: `space_content_updated` → Content updated. */
const NAMES: Record<string, string> = {
  space_content_updated: 'Content updated',
  space_view: 'Space viewed',
  space_visibility_updated: 'Visibility changed',
  space_gitsync_started: 'Git sync started',
  space_gitsync_completed: 'Git sync completed',
  site_view: 'Site view',
  page_feedback: 'Page feedback',
  installation_setup: 'Setup (organization)',
  space_installation_setup: 'Setup (space)',
  site_installation_setup: 'Setup (site)',
  ui_render: 'Screen drawn',
  fetch: 'Public endpoint request',
  fetch_published_script: 'Site script requested',
  webhook_test: 'Test event',
};

export function eventName(type: string): string {
  const known = NAMES[type];
  if (known) return known;
  const words = type.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
