import { Link } from 'react-router';
import { usePageTitle } from '../../components/use-page-title';

export function NotFoundScreen() {
  usePageTitle('Page not found');
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. Go to the <Link to="/">overview</Link> or the{' '}
        <Link to="/integrations">integrations</Link>.
      </p>
    </section>
  );
}
