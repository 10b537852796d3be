/**
 * The public endpoint integration of the CLI's GitBook-dialect tests, written for them in the
 * shapes of that runtime's wire format (it does not use `@gitbook/runtime`): `GET /v1` answers 500,
 * the envelope's `event` and `environment` are text form fields and `fetch-body` a file part, and
 * what it does not handle gets 406.
 *
 * - `installation_setup`: writes `greeting` into its organization installation's configuration
 *   through `apiEndpoint`, with its installation token.
 * - `space_installation_setup`: writes `room` into its space installation's configuration.
 * - `fetch`: answers, as JSON, the request it got and who it runs as.
 */

/** Defined by the build, as that platform's CLI defines it. */
declare const MODE: string;

interface Place {
  installation: string;
  configuration: Record<string, unknown>;
}
interface Environment {
  apiEndpoint: string;
  apiTokens: { installation?: string; integration: string };
  integration: { name: string; urls: { publicEndpoint: string; publicContentEndpoint: string } };
  installation?: { id: string; target: { organization: string }; configuration: Record<string, unknown> };
  spaceInstallation?: Place & { space: string };
}
interface FetchEvent {
  type: 'fetch';
  request: { url: string; method: string; headers: Record<string, string> };
}

/** `PATCH {apiEndpoint}/v1/integrations/{name}/installations/{id}[/spaces/{space}]`, as that runtime's API client calls it. */
async function patch(environment: Environment, path: string, configuration: Record<string, unknown>) {
  const response = await fetch(
    `${environment.apiEndpoint}/v1/integrations/${environment.integration.name}/installations/${path}`,
    {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${environment.apiTokens.installation}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ configuration }),
    },
  );
  if (!response.ok) return Response.json({ error: `PATCH ${path}: ${await response.text()}` }, { status: 500 });
  return Response.json({});
}

async function answer(event: FetchEvent, body: File | null, environment: Environment): Promise<Response> {
  const url = new URL(event.request.url);
  if (!url.pathname.endsWith('/echo')) return Response.json({ error: `no route ${url.pathname}` }, { status: 404 });
  return Response.json({
    path: url.pathname,
    query: url.search,
    method: event.request.method,
    body: body === null ? null : await body.text(),
    mode: MODE,
    installation: environment.installation?.id ?? null,
    organization: environment.installation?.target.organization ?? null,
    greeting: environment.installation?.configuration.greeting ?? null,
    space: environment.spaceInstallation?.space ?? null,
    room: environment.spaceInstallation?.configuration.room ?? null,
    token: environment.apiTokens.integration !== '',
    urls: environment.integration.urls,
  });
}

export default {
  async fetch(request: Request): Promise<Response> {
    // That runtime has no route to describe the integration: the platform reads the manifest.
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string) as { type: string };
    const environment = JSON.parse(form.get('environment') as string) as Environment;
    const installation = environment.installation?.id ?? '';
    switch (event.type) {
      case 'installation_setup':
        if (environment.installation?.configuration.greeting !== undefined) return Response.json({});
        return patch(environment, installation, { greeting: `Hello from ${MODE}` });
      case 'space_installation_setup': {
        const place = environment.spaceInstallation;
        if (place === undefined || place.configuration.room !== undefined) return Response.json({});
        return patch(environment, `${installation}/spaces/${place.space}`, { room: `room of ${place.space}` });
      }
      case 'fetch':
        return answer(event as FetchEvent, form.get('fetch-body') as File | null, environment);
      default:
        return Response.json({ error: `${event.type} is not handled` }, { status: 406 });
    }
  },
};
