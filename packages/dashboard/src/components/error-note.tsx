import { ApiError } from '../api/client';
import { MessageText } from './message-text';

/**
 * Codes whose message already says it all in plain words: a code tail ("(network)",
 * "(unauthenticated)") would only repeat it in technical terms.
 */
const QUIET_CODES = new Set(['network', 'unauthenticated', 'unauthorized', 'forbidden', 'not_found']);

/** An error as a person reads it: what the server said and, for an API error, its code. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  // A request of a signed-in page refused as unauthenticated: the session ended (the server's text
  // speaks of bearer tokens, for API callers). Sign-in refusals keep their own words.
  const ended = error instanceof ApiError && error.status === 401 && error.message.startsWith('send a valid token');
  const message = ended
    ? 'your session has ended: sign in again, then try once more'
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <div role="alert" className="error-note">
      {title ? <strong>{title}: </strong> : null}
      <MessageText message={message} />
      {error instanceof ApiError && error.code && !QUIET_CODES.has(error.code) ? (
        <span className="error-code"> ({error.code})</span>
      ) : null}
    </div>
  );
}
