/**
 * Sign-in with the email the Bicep provisions: identity sends the code through Azure Communication
 * Services with the real client library (@azure/communication-email) and a token credential, to a
 * local HTTPS stand-in of the service (tests/identity/acs-email-server.ts). Over real HTTP through
 * the dev host: the code that arrives there signs the user in, and nothing goes to the outbox.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { TokenCredential } from '@azure/core-auth';
import { EmailClient } from '@azure/communication-email';
import { identity } from '../../functions/identity';
import { parseFrom, sendWithAcs, useEmailClient } from '../../shared/mail/mailer';
import { startTestHost, type TestHost } from '../helpers/host';
import { loopbackCertificate, startAcsEmailServer } from './acs-email-server';

const TOKEN = 'entra-token-for-acs';
const SENDER = 'DoNotReply@0f1e2d3c.azurecomm.net';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

let acs: Awaited<ReturnType<typeof startAcsEmailServer>>;
let client: EmailClient;
let host: TestHost;
beforeAll(async () => {
  const certificate = loopbackCertificate();
  acs = await startAcsEmailServer({ token: TOKEN, senders: [SENDER], certificate });
  // The stand-in's certificate is trusted by this client only.
  const agent = new https.Agent({ ca: certificate.cert });
  client = new EmailClient(acs.url, credential, {
    additionalPolicies: [
      {
        position: 'perCall',
        policy: {
          name: 'trust-test-certificate',
          sendRequest: (request, next) => {
            request.agent = agent;
            return next(request);
          },
        },
      },
    ],
  });
  host = await startTestHost({ env: { SERVICES: 'identity', EMAIL_ACS_ENDPOINT: acs.url, EMAIL_FROM: `Report Platform <${SENDER}>` } });
  useEmailClient(host.platform, acs.url, client);
});
afterAll(async () => {
  await host.stop();
  await acs.stop();
});

const post = (route: string, body: unknown) =>
  host.fetch(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('the sign-in code goes out through Azure Communication Services, from the provisioned sender, and signs the user in', async () => {
  const login = await post('/identity/auth/login', { email: 'acs-user@example.com' });
  expect(login.status).toBe(200);
  expect(acs.sent).toHaveLength(1);
  const [email] = acs.sent;
  expect(email.senderAddress).toBe(SENDER);
  expect(email.recipients.to).toEqual([{ address: 'acs-user@example.com' }]);
  const code = /\b(\d{6,10})\b/.exec(email.content.plainText ?? '')?.[1];
  expect(code).toBeDefined();

  const verify = await post('/identity/auth/verify', { email: 'acs-user@example.com', code });
  expect(verify.status).toBe(200);
  expect(await verify.json()).toMatchObject({ accessToken: expect.any(String), user: { email: 'acs-user@example.com' } });
  // The local outbox is for laptops without a mail service: nothing was written there.
  expect(fs.existsSync(path.join(host.dataDir, 'outbox')) ? fs.readdirSync(path.join(host.dataDir, 'outbox')) : []).toEqual([]);
});

test('a send the service refuses (a sender outside the linked domain) throws with its reason', async () => {
  await expect(sendWithAcs(client, 'Someone <someone@example.com>', { to: 'x@example.com', subject: 's', text: 't' })).rejects.toThrow(
    /InvalidSenderUserName|not a sender/,
  );
});

test('a send the service accepts answers the id of its operation (what its logs are searched by)', async () => {
  const id = await sendWithAcs(client, `Report Platform <${SENDER}>`, { to: 'someone@example.com', subject: 's', text: 't' });
  expect(id).toBe(acs.ids.at(-1));
});

test('the dev host banner names the endpoint and the sender', () => {
  expect(identity.describe!(host.platform)).toEqual([
    `email        Azure Communication Services ${acs.url} (managed identity), from Report Platform <${SENDER}>`,
  ]);
});

test('reads EMAIL_FROM as a display name and an address, or a bare address', () => {
  expect(parseFrom(`Report Platform <${SENDER}>`)).toEqual({ displayName: 'Report Platform', address: SENDER });
  expect(parseFrom(`"Ops, Team" <ops@example.com>`)).toEqual({ displayName: 'Ops, Team', address: 'ops@example.com' });
  expect(parseFrom(' ops@example.com ')).toEqual({ address: 'ops@example.com' });
  expect(parseFrom('<ops@example.com>')).toEqual({ address: 'ops@example.com' });
  expect(parseFrom('ops@example.com>')).toEqual({ address: 'ops@example.com>' });
  // Not a name and an address: taken whole, for the service to refuse with its own reason.
  expect(parseFrom('Ops <not an address>')).toEqual({ address: 'Ops <not an address>' });
  expect(parseFrom('Ops <ops@example.com> x')).toEqual({ address: 'Ops <ops@example.com> x' });
  expect(parseFrom('Ops <a<b@example.com>')).toEqual({ address: 'b@example.com', displayName: 'Ops <a' });
});
