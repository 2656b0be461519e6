import { toIso } from '../../shared/sql/dialect';

describe('toIso reads every timestamp form either database returns', () => {
  test.each([
    ['UTC with Z', '2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z'],
    ['no offset (written as UTC)', '2026-11-22T10:00:00.123', '2026-11-22T10:00:00.123Z'],
    ['SQLite space form', '2026-11-22 10:00:00', '2026-11-22T10:00:00.000Z'],
    ['positive offset', '2026-11-22T12:00:00+02:00', '2026-11-22T10:00:00.000Z'],
    ['negative offset', '2026-11-22T05:00:00-05:00', '2026-11-22T10:00:00.000Z'],
    ['negative offset without colon', '2026-11-22T05:00:00.000-0500', '2026-11-22T10:00:00.000Z'],
  ])('%s', (_name, input, expected) => {
    expect(toIso(input)).toBe(expected);
  });

  test('a Date from tedious and an absent value', () => {
    expect(toIso(new Date('2026-11-22T10:00:00Z'))).toBe('2026-11-22T10:00:00.000Z');
    expect(toIso(null)).toBeNull();
  });
});
