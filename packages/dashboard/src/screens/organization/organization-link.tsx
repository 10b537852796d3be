import { Link } from 'react-router';
import { useOrganization } from '../../api/queries';

/** A link to an organization's page, named by its title (its id until the title is read). */
export function OrganizationLink({ id }: { id: string }) {
  const organization = useOrganization(id);
  return <Link to={`/orgs/${encodeURIComponent(id)}`}>{organization.data?.title ?? id}</Link>;
}
