/**
 * The configuration integration of the CLI's GitBook-dialect tests, written for them in the
 * shapes of that runtime's wire format (it does not use `@gitbook/runtime`).
 *
 * - `ui_render` of `config` (its configuration screen, for the organization, a space or a site):
 *   its initial state comes from its props, as such components do (`props.installation.configuration`,
 *   `props.spaceInstallation?.configuration`), and it shows them.
 * - `ui_render` of the block `preview` (which has no description, as theirs may not): an editor
 *   is shown to whoever may edit the page (`context.editable`), the text alone to a reader.
 * - `fetch /integration`: what its environment says of it (title, first external link, icon,
 *   content security policy).
 * - `fetch /places?site=ID` (at a space installation's endpoint): the `urls` of its space and of
 *   the site, read through `apiEndpoint` with its installation token.
 */

interface Place {
  configuration: Record<string, unknown>;
}
interface Environment {
  apiEndpoint: string;
  apiTokens: { installation: string };
  integration: {
    title: string;
    summary: string;
    externalLinks: { label: string; url: string }[];
    contentSecurityPolicy?: string;
    urls: { icon?: string };
  };
  installation?: { target: { organization: string } };
  spaceInstallation?: Place & { space: string };
}
interface Props {
  installation: Place;
  spaceInstallation?: Place;
  siteInstallation?: Place;
}
type Event =
  | {
      type: 'ui_render';
      componentId: string;
      props: Props;
      state?: Record<string, unknown>;
      context?: { editable?: boolean };
    }
  | { type: 'fetch'; request: { url: string } }
  | { type: string };

/** The screen's state before anything is typed: from the installations in its props. */
function initialState(props: Props) {
  return {
    greeting: props.installation.configuration.greeting ?? null,
    room: (props.spaceInstallation ?? props.siteInstallation)?.configuration.room ?? null,
  };
}

function render(props: Props, given: Record<string, unknown> | undefined): Response {
  const state = given ?? initialState(props);
  return Response.json({
    element: {
      type: 'configuration',
      children: [{ type: 'markdown', content: `Greeting: ${state.greeting}; room: ${state.room}` }],
    },
    state,
  });
}

async function read(environment: Environment, path: string) {
  const response = await fetch(`${environment.apiEndpoint}${path}`, {
    headers: { authorization: `Bearer ${environment.apiTokens.installation}` },
  });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { urls: { app: string; published: string } };
}

async function answer(url: URL, environment: Environment): Promise<Response> {
  if (url.pathname.endsWith('/integration')) {
    const { title, summary, externalLinks, urls, contentSecurityPolicy } = environment.integration;
    return Response.json({ title, summary, link: externalLinks[0]?.url, icon: urls.icon, contentSecurityPolicy });
  }
  if (url.pathname.endsWith('/places')) {
    const space = await read(environment, `/v1/spaces/${environment.spaceInstallation?.space}`);
    const organization = environment.installation?.target.organization;
    const site = await read(environment, `/v1/orgs/${organization}/sites/${url.searchParams.get('site')}`);
    return Response.json({ space: space.urls.published, spaceApp: space.urls.app, site: site.urls.app });
  }
  return Response.json({ error: `no route ${url.pathname}` }, { status: 404 });
}

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string) as Event;
    const environment = JSON.parse(form.get('environment') as string) as Environment;
    if (event.type === 'ui_render' && 'props' in event && event.componentId === 'preview') {
      const text = { type: 'text', children: ['The preview'] };
      const editor = { type: 'input', label: 'Caption', element: { type: 'textinput', state: 'caption' } };
      const children = event.context?.editable === false ? [text] : [text, editor];
      return Response.json({ element: { type: 'block', children }, state: {} });
    }
    if (event.type === 'ui_render' && 'props' in event) return render(event.props, event.state);
    if (event.type === 'fetch' && 'request' in event) return answer(new URL(event.request.url), environment);
    return Response.json({ error: `${event.type} is not handled` }, { status: 406 });
  },
};
