/**
 * What the platform sends on its own account: the dashboard's renders and the setup events. The
 * server leaves them out of the Events log on `system=false`; the live stream's lines are sorted
 * the same way here.
 */
export const SYSTEM_EVENTS: ReadonlySet<string> = new Set([
  'ui_render',
  'installation_setup',
  'space_installation_setup',
  'site_installation_setup',
]);
