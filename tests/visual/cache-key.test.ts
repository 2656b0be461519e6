import fc from 'fast-check';
import { chartJsConfig, type ChartSpec } from '../../functions/visual/chart-spec';
import { chartKey } from '../../functions/visual/charts';
import { dashboardSvg, infographicKey, type InfographicSpec } from '../../functions/visual/infographics';
import { THEMES } from '../../functions/visual/themes';

/**
 * A cached image is served to whoever asks with the same key, so the key must be a hash of exactly
 * what is drawn: two specifications with the same key must draw the same image. The property is
 * checked against what the renderer is handed (an infographic's SVG is the image itself; a chart's
 * Chart.js configuration is all its renderer reads), for specifications and the same
 * specifications with their keys shuffled at every level, since renderers draw objects in key
 * order. Before keys were hashed in the order drawn, shuffled infographic metrics shared a key and
 * drew different images.
 */
const theme = THEMES.professional;

/** The same JSON value with the keys of every object in another order (a seeded shuffle). */
function shuffledKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffledKeys(item, random));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, shuffledKeys(item, random)]));
}

const seeded = (seed: number) => {
  let state = seed >>> 0 || 1;
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
};

const label = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !['__proto__', 'constructor', 'prototype'].includes(s));
const flatData = fc.dictionary(label, fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.string({ maxLength: 8 })), { minKeys: 1, maxKeys: 8 });
const infographic: fc.Arbitrary<InfographicSpec> = fc.record(
  { type: fc.constant('dashboard' as const), title: fc.string({ maxLength: 20 }), width: fc.integer({ min: 300, max: 1200 }), data: flatData },
  { requiredKeys: ['type', 'data'] },
);

const chart: fc.Arbitrary<ChartSpec> = fc.record({
  type: fc.constantFrom('bar' as const, 'line' as const, 'pie' as const, 'radar' as const),
  data: fc.record({
    labels: fc.array(fc.string({ maxLength: 6 }), { maxLength: 6 }),
    datasets: fc.array(
      fc.record({
        label: fc.string({ maxLength: 8 }),
        data: fc.array(fc.integer({ min: -100, max: 100 }), { maxLength: 6 }),
        borderWidth: fc.integer({ min: 0, max: 4 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  options: fc.record(
    {
      title: fc.string({ maxLength: 10 }),
      plugins: fc.record({ legend: fc.record({ display: fc.boolean(), position: fc.constantFrom('top', 'left', 'bottom') }) }),
      scales: fc.record({ y: fc.record({ beginAtZero: fc.boolean(), max: fc.integer({ min: 1, max: 500 }) }) }),
    },
    { requiredKeys: [] },
  ),
});

test('infographics: the same key always draws the same image, shuffled keys included', () => {
  let sameKey = 0;
  fc.assert(
    fc.property(infographic, fc.integer(), fc.boolean(), (spec, seed, shuffle) => {
      const other = (shuffle ? shuffledKeys(spec, seeded(seed)) : JSON.parse(JSON.stringify(spec))) as InfographicSpec;
      const image = (s: InfographicSpec) => dashboardSvg(s, theme).svg;
      if (infographicKey(spec, 'svg', 'high', theme) === infographicKey(other, 'svg', 'high', theme)) {
        sameKey++;
        expect(image(other)).toBe(image(spec));
      } else {
        // Different keys for the same image cost a render, never a wrong answer; here they must mean the drawing order differs.
        expect(JSON.stringify(other)).not.toBe(JSON.stringify(spec));
      }
    }),
    { numRuns: 300 },
  );
  // Not vacuous: copies (and shuffles that kept the order) share keys.
  expect(sameKey).toBeGreaterThan(50);
});

test('charts: the same key always hands the renderer the same configuration, shuffled keys included', () => {
  let sameKey = 0;
  fc.assert(
    fc.property(chart, fc.integer(), fc.boolean(), (spec, seed, shuffle) => {
      const other = (shuffle ? shuffledKeys(spec, seeded(seed)) : JSON.parse(JSON.stringify(spec))) as ChartSpec;
      if (chartKey(spec, 'png', 'high', theme) === chartKey(other, 'png', 'high', theme)) {
        sameKey++;
        expect(JSON.stringify(chartJsConfig(other, theme))).toBe(JSON.stringify(chartJsConfig(spec, theme)));
      }
    }),
    { numRuns: 300 },
  );
  expect(sameKey).toBeGreaterThan(50);
});

test('metrics in another order draw another image under another key', () => {
  const a: InfographicSpec = { type: 'dashboard', data: { Revenue: 1200, Margin: 38 } };
  const b: InfographicSpec = { type: 'dashboard', data: { Margin: 38, Revenue: 1200 } };
  expect(dashboardSvg(a, theme).svg).not.toBe(dashboardSvg(b, theme).svg);
  expect(infographicKey(a, 'svg', 'high', theme)).not.toBe(infographicKey(b, 'svg', 'high', theme));
});
