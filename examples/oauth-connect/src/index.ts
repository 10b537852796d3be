// An OAuth 2.0 connection (spec 2.5, 5.1): the `Connect` button of the configuration opens the
// public endpoint's /oauth, which sends the user to the provider and, on the way back, stores
// the access token in the `oauth_credentials` property. Client id, secret and the provider's
// address come from the manifest's secrets.
import { createIntegration, createOAuthHandler } from '@portico/runtime';

const oauth = createOAuthHandler((context) => {
  const { CLIENT_ID = '', CLIENT_SECRET = '', PROVIDER_URL = '' } = context.environment.secrets;
  return {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authorizeURL: `${PROVIDER_URL}/auth`,
    accessTokenURL: `${PROVIDER_URL}/token`,
    scopes: ['openid'],
    prompt: 'consent',
  };
});

export default createIntegration({
  async fetch(request, context) {
    const path = new URL(request.url).pathname;
    if (path.endsWith('/oauth')) return oauth(request, context);
    return new Response('Not found', { status: 404 });
  },
});
