import { useParams } from 'react-router';
import { usePlace } from '../../api/queries';
import { LoadError } from '../../components/load-error';
import { Loading } from '../../components/loading';
import { usePageTitle } from '../../components/use-page-title';
import { InstallationList } from '../organization/installation-list';
import { OrganizationLink } from '../organization/organization-link';
import { AddToPlace } from './add-to-place';

/** A site and its installations. */
export function SiteScreen() {
  const { id = '' } = useParams();
  const site = usePlace('site', id);
  usePageTitle(site.data?.title ?? (site.error ? 'Site' : undefined));
  if (site.isPending) return <Loading />;
  if (site.error) return <LoadError error={site.error} what="Site" />;
  return (
    <article>
      <h1>{site.data.title}</h1>
      <p className="muted">
        A site of <OrganizationLink id={site.data.organization} />
      </p>
      <h2>Installations</h2>
      <InstallationList
        installations={site.data.installations}
        empty="No integration is installed in this site yet: add one below."
      />
      <AddToPlace kind="site" place={site.data.id} title={site.data.title} org={site.data.organization} />
    </article>
  );
}
