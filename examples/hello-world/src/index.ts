// The entry script named by `script:` in platform-manifest.yaml. It is written against the
// Portico SDK (@portico/runtime); `portico check` validates the manifest, not this file.
import { createIntegration } from '@portico/runtime';

export default createIntegration({
  // The public endpoint (spec 4.2): acknowledge greetings quickly, do heavy work after.
  async fetch(request) {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    return Response.json({ received: true });
  },
  events: {
    async installation_setup(event, context) {
      console.log('installed with', context.environment.configuration, event.type);
    },
  },
});
