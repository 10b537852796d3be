/**
 * PERMISSION REQUESTS (issue 44): the place in the operator console for integrations' requests for
 * more scopes. The listing (`GET /v1/scope-requests`) is built elsewhere; the lead wires it here:
 * a query in api/queries.ts, then one card per request with where it comes from and its answer.
 */
export function PermissionRequestsPanel() {
  return (
    <section aria-labelledby="permission-requests-heading" className="panel">
      <h2 id="permission-requests-heading" tabIndex={-1}>
        Permission requests
      </h2>
      <p className="muted">Requests of integrations for more permissions than they were installed with appear here.</p>
    </section>
  );
}
