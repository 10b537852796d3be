// Runs the reference receiver: WEBHOOK_SECRET=whsec_… PORT=3000 node src/main.js
import { createReceiverServer } from './receiver.js';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error(
    'set WEBHOOK_SECRET to the signing secret of your webhook installation (GET /v1/installations/{id}/signing-secret)',
  );
  process.exit(1);
}
const port = Number(process.env.PORT ?? 3000);
createReceiverServer({ secret, work: (event) => console.log(`${event.type} ${event.eventId}`) }).listen(
  port,
  '127.0.0.1',
  () => console.log(`receiving webhooks on http://127.0.0.1:${port}/`),
);
