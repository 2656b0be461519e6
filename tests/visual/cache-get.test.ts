import { appSettings } from '../helpers/context';

import { container } from '../../shared/storage';
import { barChart, postJson, fetchFresh, visualTestHost } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

const context = visualTestHost();

test('GET of a result this instance just stored is answered from its index, without a storage round trip (the blob deleted behind its back)', async () => {
  const res = await postJson(
    context.host,
    '/visual/api/v1/charts/render',
    { charts: [barChart('served', { title: 'served from the index' })], format: 'svg' },
    context.token,
  );
  expect(res.status).toBe(200);
  const { imageUrl } = ((await res.json()) as { charts: { imageUrl: string }[] }).charts[0];
  const before = await fetchFresh(imageUrl);
  const bytes = Buffer.from(await before.arrayBuffer());
  expect(before.status).toBe(200);

  // Read from storage, the GET would now be a 404.
  const key = imageUrl.split('/').pop()!;
  await (await container(appSettings().VISUAL_CACHE_CONTAINER)).deleteBlob(key);
  const after = await fetchFresh(imageUrl);
  expect(after.status).toBe(200);
  expect(after.headers.get('content-type')).toBe('image/svg+xml');
  expect(Buffer.from(await after.arrayBuffer()).equals(bytes)).toBe(true);
  const head = await fetchFresh(imageUrl, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(head.headers.get('etag')).toBe(before.headers.get('etag'));
});

test('a key this instance did not store is still read from storage (404 when missing)', async () => {
  await expectErrorAnswer(await fetchFresh(`${context.host.url}/visual/cache/${'a'.repeat(64)}`), 404, 'CACHE_ENTRY_NOT_FOUND');
});
