import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorNote } from './error-note';

/**
 * A page whose data could not be read: "not found" (or not yours) with a heading and a way back,
 * else what went wrong.
 */
export function LoadError({ error, what }: { error: unknown; what: string }) {
  const missing = error instanceof ApiError && (error.status === 404 || error.status === 403);
  return (
    <section>
      <h1>{missing ? `${what} not found` : `This ${what.toLowerCase()} could not be shown`}</h1>
      {missing ? (
        <p>
          There is no {what.toLowerCase()} at this address, or it is not one you may see (it may have been removed).
        </p>
      ) : (
        <ErrorNote error={error} />
      )}
      <p>
        Go back to the <Link to="/">overview</Link> or the <Link to="/integrations">integrations</Link>.
      </p>
    </section>
  );
}
