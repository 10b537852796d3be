/**
 * The site script integration of the CLI's GitBook-dialect tests, written for them in the shapes
 * of that runtime's wire format (it does not use `@gitbook/runtime`): `GET /v1` answers 500, the
 * envelope's `event` and `environment` are text form fields, and what it does not handle gets 406.
 * It answers `fetch_published_script` with its `.raw.js` widget (imported as text by the build),
 * filled in with the site installation's configuration, as the analytics and chat integrations do.
 */
import widget from './widget.raw.js';

/** Defined by the build, as that platform's CLI defines it. */
declare const MODE: string;

interface Environment {
  siteInstallation?: { site: string; configuration: { room?: string } };
}

/** The widget's text with its placeholders (`__NAME__`) filled in as JSON strings, so no value breaks out. */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/__([A-Z]+)__/g, (match, name: string) =>
    name in values ? JSON.stringify(values[name]) : match,
  );
}

export default {
  async fetch(request: Request): Promise<Response> {
    // That runtime has no route to describe the integration: the platform reads the manifest.
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string) as { type: string; siteId?: string };
    const environment = JSON.parse(form.get('environment') as string) as Environment;
    if (event.type !== 'fetch_published_script') {
      return Response.json({ error: `${event.type} is not handled` }, { status: 406 });
    }
    const site = environment.siteInstallation;
    if (site === undefined) return Response.json({ error: 'not a site installation' }, { status: 400 });
    const script = fill(widget, { ROOM: site.configuration.room ?? '', SITE: event.siteId ?? site.site, MODE });
    return new Response(script, { headers: { 'content-type': 'application/javascript' } });
  },
};
