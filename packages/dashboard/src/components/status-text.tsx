/** A status as its word (pending, active, paused, delivered, failed…), coloured but never only by colour. */
export function StatusText({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`status ${status}`}>
      {label ? <span className="visually-hidden">{label}: </span> : null}
      {status}
    </span>
  );
}
