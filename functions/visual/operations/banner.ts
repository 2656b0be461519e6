import { op } from '../context';

/** The plain-text banner of every other path: the operations of the route table. */
export const banner = (lines: () => string[]) =>
  op('A plain-text list of the API (paths outside /api/v1/)', async () => ({
    status: 200,
    body: `${lines().join('\n')}\n`,
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  }));
