import { NavLink } from 'react-router';
import { useOrganizations } from '../../api/queries';

/** The organizations of the signed-in person, in the frame's navigation. */
export function OrganizationNav() {
  const organizations = useOrganizations();
  if (!organizations.data?.length) return null;
  return (
    <nav aria-label="Organizations" className="org-nav">
      {organizations.data.map((org) => (
        <NavLink key={org.id} to={`/orgs/${encodeURIComponent(org.id)}`}>
          {org.title}
        </NavLink>
      ))}
    </nav>
  );
}
