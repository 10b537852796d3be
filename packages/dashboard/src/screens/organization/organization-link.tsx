import { Link } from 'react-router';
import { useOrganization } from '../../api/queries';

/** A link to an organization's page, named by its title (its id only when the title cannot be read). */
export function OrganizationLink({ id }: { id: string }) {
  const organization = useOrganization(id);
  if (organization.isPending) return <span className="muted">…</span>;
  return <Link to={`/orgs/${encodeURIComponent(id)}`}>{organization.data?.title ?? id}</Link>;
}
