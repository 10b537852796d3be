import type { IntegrationPage } from '../api/queries';

/** What installing grants: each scope the integration asks for, with what it allows (the install confirmation). */
export function GrantList({ integration }: { integration: Pick<IntegrationPage, 'title' | 'scopeGrants'> }) {
  if (integration.scopeGrants.length === 0) {
    return <p>{integration.title} asks for no permissions.</p>;
  }
  return (
    <>
      <p>Installing grants {integration.title} these permissions:</p>
      <ul aria-label="Permissions it is granted">
        {integration.scopeGrants.map((grant) => (
          <li key={grant.scope}>
            {grant.grants} <code>{grant.scope}</code>
          </li>
        ))}
      </ul>
      <p className="muted">A later version that asks for more gets it only once an admin accepts.</p>
    </>
  );
}
