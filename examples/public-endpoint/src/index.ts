// The public endpoint's reference behaviour (spec 4.2): anything but POST answers 405
// "Method not allowed"; a POST answers 200 { "received": true } at once, and the work it
// causes (here: recording when it arrived) happens after the response.
import { createIntegration } from '@portico/runtime';

export default createIntegration({
  async fetch(request, context) {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    const arrived = new Date().toISOString();
    context.waitUntil(context.api.updateConfiguration({ last_received_at: arrived }));
    return Response.json({ received: true });
  },
});
