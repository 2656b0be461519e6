import { moduleState } from '../../scripts/module-state';

/**
 * The only module-level state the deployed code may hold (docs/architecture.md says why): each
 * belongs to a process or a thread, never to settings. Everything else is a platform member.
 */
const EXCEPTIONS: Record<string, string[]> = {
  // 1. Which platform is the process's: the Functions entry point's, a command's, the dev host's.
  'shared/platform.ts': ['processPlatform'],
  // 2. The process's log and telemetry sinks: one stdout, one OpenTelemetry registration per process.
  'shared/logging.ts': ['exportLine', 'root'],
  'shared/telemetry/runtime.ts': ['ready', 'runtime', 'unsubscribes'],
  // 3. A render thread's own state: it runs one task at a time, and no platform lives in it.
  'functions/visual/render/draw-chart.ts': ['measurer', 'kept'],
  'functions/visual/render/png.ts': ['reusedRows'],
  'functions/visual/render/svg-context.ts': ['paints'],
  // 4. Facts about the deployed package's own files, read once: the same for every platform, since they describe the code, not the settings.
  'shared/script-fonts.ts': ['built', 'coverage'],
};

test('no module-level mutable state in functions/ or shared/ beyond the four documented exceptions', () => {
  const found = moduleState().filter(({ file, name }) => !EXCEPTIONS[file]?.includes(name));
  expect(found.map(({ file, line, name }) => `${file}:${line} ${name}`)).toEqual([]);
});

test('each exception is still there (a removed one is taken off the list and the docs)', () => {
  const found = new Set(moduleState().map(({ file, name }) => `${file} ${name}`));
  const listed = Object.entries(EXCEPTIONS).flatMap(([file, names]) => names.map((name) => `${file} ${name}`));
  expect(listed.filter((entry) => !found.has(entry))).toEqual([]);
});

test('the finder sees a let, a var, an empty array and a writable collection, and not a read-only one', () => {
  const fixtures = moduleState(['tests/platform/fixtures/module-state']).map(({ name }) => name);
  expect(fixtures.sort()).toEqual(['counter', 'legacy', 'pending', 'seen']);
});
