// @ts-nocheck: a test fixture, bundled by `portico publish` in the end-to-end tests.
import { createComponent, createIntegration } from '@portico/runtime';

const record = (context, what) =>
  fetch(context.environment.secrets.RECORDER_URL, {
    method: 'POST',
    body: JSON.stringify({ ...what, environment: context.environment }),
  });
const handler = async (event, context) => {
  console.log('recording', event.type);
  await record(context, { event });
};
export default createIntegration({
  async fetch(request, _context) {
    const body = new Uint8Array(await request.arrayBuffer());
    return new Response(body, {
      status: 201,
      headers: {
        'x-method': request.method,
        'x-url': request.url,
        'x-custom': request.headers.get('x-custom') ?? '',
        'content-type': 'application/octet-stream',
      },
    });
  },
  components: [
    createComponent({
      componentId: 'counter',
      initialState: () => ({ count: 0 }),
      action: async (element, action) => (action.action === 'add' ? { state: { count: element.state.count + 1 } } : {}),
      render: async (element) => ({
        type: 'block',
        children: [
          { type: 'text', children: `Count: ${element.state.count}` },
          { type: 'button', label: 'Add', onPress: { action: 'add' } },
        ],
      }),
    }),
  ],
  events: Object.fromEntries(
    [
      'installation_setup',
      'space_installation_setup',
      'site_installation_setup',
      'space_view',
      'space_content_updated',
      'space_visibility_updated',
      'space_gitsync_started',
      'space_gitsync_completed',
      'site_view',
      'page_feedback',
    ].map((t) => [t, handler]),
  ),
});
