import { db } from '../../shared/sql/db';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn } from '../helpers/identity';
import { malformedParts, officeXmlParts } from '../helpers/office-xml';
import { waitFor } from '../helpers/wait';
import { ACME } from './helpers';

/**
 * The enterprise presentation, built by the orchestrator with pptxgenjs (report/presentation.ts),
 * for a company whose name holds a control character: every XML part of the deck well-formed, the
 * name there without it (issue 48: "Gamma\u0001Co" shipped a deck with five malformed parts).
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

type Status = { status: string; downloadLinks: { kind: string; url: string }[] };

test('an enterprise report for "Gamma\\u0001Co": every XML part of its deck is well-formed and names "GammaCo"', async () => {
  const first = await signIn(host, 'deck-xml@example.com');
  await db().updateTable('users').set({ plan: 'enterprise' }).where('id', '=', first.user.id).execute();
  const { accessToken } = await signIn(host, 'deck-xml@example.com');
  const accepted = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(accessToken) },
    body: JSON.stringify({ ...ACME, company_name: 'Gamma\u0001Co' }),
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
  expect([...parts.values()].filter((xml) => xml.includes('\u0001'))).toEqual([]);
  expect(parts.get('ppt/slides/slide1.xml')).toContain('>GammaCo</a:t>');
  expect(parts.get('docProps/core.xml')).toContain('>GammaCo business report</dc:title>');
});
