-- Portico schema 22: granted scopes (issue 44; DESIGN.md "Granted scopes", decision 054). An
-- organization installation holds the scopes its organization granted (a JSON array): the ceiling
-- for the events routed to it and to the space and site installations below it, their tokens,
-- environments and site scripts. Space and site installations hold none (null): they share their
-- organization installation's. A version asking for more waits for an admin to accept.
ALTER TABLE installations ADD COLUMN granted_scopes TEXT;
-- Installations made before: granted what the version they run now asks for.
UPDATE installations SET granted_scopes = coalesce((
  SELECT (v.manifest::jsonb -> 'scopes')::text
  FROM integrations g
  JOIN integration_versions v ON v.integration_name = g.name AND v.version = g.latest_version
  WHERE g.name = installations.integration_name
), '[]')
WHERE target_type = 'organization';
-- The tokens in force carry that grant (what an installation's token may do).
UPDATE installation_tokens SET scopes = coalesce((
  SELECT coalesce(p.granted_scopes, i.granted_scopes)
  FROM installations i LEFT JOIN installations p ON p.id = i.parent_id
  WHERE i.id = installation_tokens.installation_id
), scopes)
WHERE revoked_at IS NULL;
