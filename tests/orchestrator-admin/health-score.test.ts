import { alertsFor, band, healthScore, successRate } from '../../functions/orchestrator/admin/health-score';
import { SCORE_BANDS } from './fixtures';

test.each([...SCORE_BANDS, [0, 'POOR']])('score %i is %s', (score, status) => {
  expect(band(score)).toBe(status);
});

test('the success rate is rounded before the band is chosen: 89.5 % is 90, 89.49 % is 89', () => {
  expect(healthScore(89.5, [])).toBe(90);
  expect(healthScore(89.49, [])).toBe(89);
});

test('penalties: 10 per HIGH and 5 per MEDIUM alert, never below 0', () => {
  expect(healthScore(100, [{ level: 'HIGH' }, { level: 'MEDIUM' }])).toBe(85);
  expect(healthScore(20, [{ level: 'HIGH' }, { level: 'HIGH' }, { level: 'HIGH' }])).toBe(0);
});

test('with nothing finished the success rate is 100', () => {
  expect(successRate(0, 0)).toBe(100);
  expect(successRate(1, 2)).toBe(33.33);
});

test('with nothing finished there is no FAILURE_RATE alert', () => {
  expect(alertsFor({ finished: 0, failed: 0, errorsBySource: {}, schemaMissingErrors: 0, longRunning: 0 })).toEqual([]);
});
