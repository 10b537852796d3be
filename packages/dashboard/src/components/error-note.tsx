import { ApiError } from '../api/client';
import { MessageText } from './message-text';

/** An error as a person reads it: what the server said and, for an API error, its code. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div role="alert" className="error-note">
      {title ? <strong>{title}: </strong> : null}
      <MessageText message={message} />
      {error instanceof ApiError && error.code ? <span className="error-code"> ({error.code})</span> : null}
    </div>
  );
}
