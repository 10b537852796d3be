import { Link } from 'react-router';

export function NotFoundScreen() {
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
