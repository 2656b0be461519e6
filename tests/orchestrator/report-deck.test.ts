import { db } from '../../shared/sql/db';
import { startTestHost, type TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';
import { bearer, signIn } from '../helpers/identity';
import { malformedParts, officeXmlParts } from '../helpers/office-xml';
import { waitFor } from '../helpers/wait';
import { startChatServer, type ChatServer } from './chat-server';
import { ACME } from './helpers';

/**
 * The enterprise presentation, built by the orchestrator with pptxgenjs (report/presentation.ts),
 * holding text with control characters: every XML part of the deck well-formed, the text there
 * without them (issue 48: "Gamma\u0001Co" shipped a deck with five malformed parts). The request
 * refuses control characters in its own fields now, so the text comes from where the request does
 * not reach: the AI model's sections (a local chat-completions server answering them).
 */
let host: TestHost;
let chat: ChatServer;
beforeAll(async () => {
  chat = await startChatServer();
  host = await startTestHost({ env: { ORCHESTRATOR_AI_ENDPOINT: chat.url, ORCHESTRATOR_AI_MAX_RETRIES: '0' } });
});
afterAll(async () => {
  await host.stop();
  await chat.close();
});

type Status = { status: string; downloadLinks: { kind: string; url: string }[] };

test('a company name with a control character is refused at the request', async () => {
  const { accessToken } = await signIn(host, 'deck-name@example.com');
  const refused = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(accessToken) },
    body: JSON.stringify({ ...ACME, company_name: 'Gamma\u0001Co' }),
  });
  await expectErrorAnswer(refused, 400, 'VALIDATION_FAILED');
});

test('an enterprise deck whose AI sections hold control characters: every XML part well-formed, the text without them', async () => {
  chat.script([{ status: 200, text: 'Gamma\u0001Co grows\u0000 steadily.' }]);
  const first = await signIn(host, 'deck-xml@example.com');
  await db().updateTable('users').set({ plan: 'enterprise' }).where('id', '=', first.user.id).execute();
  const { accessToken } = await signIn(host, 'deck-xml@example.com');
  const accepted = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(accessToken) },
    body: JSON.stringify({ ...ACME, company_name: 'Gamma Co' }),
  });
  expect(accepted.status).toBe(202);
  const { trackingId } = (await accepted.json()) as { trackingId: string };
  const done = await waitFor(
    async () => {
      const response = await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(accessToken) }).catch(() => undefined);
      const body = response && ((await response.json()) as Status);
      return body && ['completed', 'failed'].includes(body.status) ? body : undefined;
    },
    60_000,
    `report ${trackingId}`,
  );
  expect(done.status).toBe('completed');
  const deck = done.downloadLinks.find((l) => l.kind === 'presentation')!;
  const parts = await officeXmlParts(Buffer.from(await (await fetch(deck.url)).arrayBuffer()));
  expect(parts.size).toBeGreaterThan(10);
  expect(malformedParts(parts)).toEqual({});
  expect([...parts.values()].filter((xml) => xml.includes('\u0000') || xml.includes('\u0001'))).toEqual([]);
  expect([...parts.values()].some((xml) => xml.includes('GammaCo grows steadily.'))).toBe(true);
});
